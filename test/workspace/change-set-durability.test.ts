// What a crash or a power loss part way through a change set can leave, and what the next process makes of
// it (src/workspace/change-set.ts, change-set-journal.ts): a process SIGKILLed right after each step of a
// real commit, and journals whose temp files and kept originals are in every state the commit's fsyncs
// allow a power loss to leave. Every file ends old or every file new, with nothing left behind.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { link, mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  hasForeignJournals,
  journalText,
  recoverChangeSets,
} from '../../src/workspace/change-set-journal.js';
import { sha256 } from '../../src/workspace/fingerprint.js';
import { fixtures, journalFolder, tempDir, transpileForChildren } from './helpers.js';

const made: string[] = [];
afterEach(async () => {
  while (made.length > 0) await rm(made.pop()!, { recursive: true, force: true });
});

/** a.txt changed, d.txt deleted, new/deep/c.txt created: the set both tests commit or recover. */
async function setWorkspace() {
  const root = await tempDir('editgate-durable-');
  const { state, journals } = await journalFolder('editgate-durable-journal-');
  made.push(root, state);
  await writeFile(join(root, 'a.txt'), 'a old\n');
  await writeFile(join(root, 'd.txt'), 'd old\n');
  const files = async () => {
    const read = (name: string) => readFile(join(root, name), 'utf8').catch(() => null);
    return { a: await read('a.txt'), d: await read('d.txt'), c: await read('new/deep/c.txt') };
  };
  /** Names a dead commit could leave: temp files and kept originals. */
  const litter = async () =>
    ((await readdir(root, { recursive: true })) as string[]).filter((name) => /\.(tmp|orig)$/.test(name));
  return { root, journals, files, litter };
}

const OLD = { a: 'a old\n', d: 'd old\n', c: null };
const NEW = { a: 'a new\n', d: null, c: 'c new\n' };

describe('SIGKILL right after each step of a 3-file commit', () => {
  let compiled: Awaited<ReturnType<typeof transpileForChildren>>;
  let locks: string;
  beforeAll(async () => {
    compiled = await transpileForChildren('src/workspace/change-set.ts');
    locks = await tempDir('editgate-durable-locks-');
  });
  afterAll(async () => {
    await compiled.cleanup();
    await rm(locks, { recursive: true, force: true });
  });

  const steps = [
    'checked',
    'journal',
    'temps',
    'originals',
    'durable',
    'renamed:0',
    'renamed:1',
    'renamed:2',
    'renames-durable',
    'committed',
    'none',
  ];
  for (const step of steps) {
    const committed = step === 'committed' || step === 'none';
    it(`killed after "${step}": the next process finds every file ${committed ? 'new' : 'old'}`, async () => {
      const ws = await setWorkspace();
      const child = spawn(
        process.execPath,
        [join(fixtures, 'change-set-step-child.mjs'), compiled.src, ws.journals, ws.root, step],
        {
          stdio: ['ignore', 'inherit', 'inherit'],
          env: { ...process.env, EDITGATE_LOCK_DIR: join(locks, step) },
        },
      );
      const [code, signal] = await once(child, 'exit');
      expect(step === 'none' ? code : signal).toBe(step === 'none' ? 0 : 'SIGKILL');
      const left = await readdir(ws.journals);
      if (step === 'checked' || step === 'none') expect(left).toEqual([]);
      else expect(left).toHaveLength(1);
      await recoverChangeSets(ws.journals, [ws.root]);
      expect(await ws.files()).toEqual(committed ? NEW : OLD);
      expect(await ws.litter()).toEqual([]);
      expect(await readdir(ws.journals)).toEqual([]);
    });
  }
});

/** One file's state on disk at a power loss, as the commit's order and fsyncs allow it. */
type State = (ws: Awaited<ReturnType<typeof setWorkspace>>, names: Names) => Promise<void>;
interface Names {
  tempA: string;
  origA: string;
  origD: string;
  tempC: string;
}

const modifyStates: Record<string, State> = {
  'a: nothing yet': async () => {},
  'a: temp written': async (_ws, n) => writeFile(n.tempA, 'a new\n'),
  'a: temp and original': async (ws, n) => {
    await writeFile(n.tempA, 'a new\n');
    await link(join(ws.root, 'a.txt'), n.origA);
  },
  'a: renamed': async (ws, n) => {
    await link(join(ws.root, 'a.txt'), n.origA);
    await writeFile(join(ws.root, 'a.txt.next'), 'a new\n');
    await rm(join(ws.root, 'a.txt'));
    await writeFile(join(ws.root, 'a.txt'), 'a new\n');
    await rm(join(ws.root, 'a.txt.next'));
  },
};
const deleteStates: Record<string, State> = {
  'd: nothing yet': async () => {},
  'd: original': async (ws, n) => link(join(ws.root, 'd.txt'), n.origD),
  'd: unlinked': async (ws, n) => {
    await link(join(ws.root, 'd.txt'), n.origD);
    await rm(join(ws.root, 'd.txt'));
  },
};
const createStates: Record<string, State> = {
  'c: nothing yet': async () => {},
  'c: temp written': async (_ws, n) => writeFile(n.tempC, 'c new\n'),
  'c: linked': async (ws, n) => {
    await writeFile(n.tempC, 'c new\n');
    await link(n.tempC, join(ws.root, 'new/deep/c.txt'));
  },
};

/** What a journal records a set wrote: the sha256 of the text's bytes. */
const wrote = (text: string) => `sha256:${sha256(Buffer.from(text))}`;

async function deadJournal(ws: Awaited<ReturnType<typeof setWorkspace>>, committed: boolean) {
  await mkdir(join(ws.root, 'new/deep'), { recursive: true });
  const names: Names = {
    tempA: join(ws.root, '.a.txt.editgate-999999999-00000001.tmp'),
    origA: join(ws.root, '.a.txt.editgate-999999999-00000002.orig'),
    origD: join(ws.root, '.d.txt.editgate-999999999-00000003.orig'),
    tempC: join(ws.root, 'new/deep/.c.txt.editgate-999999999-00000004.tmp'),
  };
  await writeFile(
    join(ws.journals, `999999999-abcdef.${committed ? 'done' : 'json'}`),
    journalText(ws.journals, 999_999_999, [
      {
        path: join(ws.root, 'a.txt'),
        kind: 'modify',
        root: ws.root,
        orig: names.origA,
        temp: names.tempA,
        wrote: wrote('a new\n'),
      },
      { path: join(ws.root, 'd.txt'), kind: 'delete', root: ws.root, orig: names.origD },
      {
        path: join(ws.root, 'new/deep/c.txt'),
        kind: 'create',
        root: ws.root,
        temp: names.tempC,
        wrote: wrote('c new\n'),
      },
    ]),
  );
  return names;
}

describe('recovery from a journal whose temps and originals are in every state a power loss allows', () => {
  // Before the commit point: any combination of the three files' states (the originals and temps are
  // durable before the first rename, so no rename survives without them). Rolled back: every file old.
  for (const [aName, a] of Object.entries(modifyStates))
    for (const [dName, d] of Object.entries(deleteStates))
      for (const [cName, c] of Object.entries(createStates)) {
        it(`not committed; ${aName}; ${dName}; ${cName}: every file old`, async () => {
          const ws = await setWorkspace();
          const names = await deadJournal(ws, false);
          await a(ws, names);
          await d(ws, names);
          await c(ws, names);
          expect(await recoverChangeSets(ws.journals, [ws.root])).toBe(1);
          expect(await ws.files()).toEqual(OLD);
          expect(await ws.litter()).toEqual([]);
          expect(await readdir(ws.journals)).toEqual([]);
          // Recovery again finds nothing to do (it is idempotent).
          expect(await recoverChangeSets(ws.journals, [ws.root])).toBe(0);
          expect(await ws.files()).toEqual(OLD);
        });
      }

  // After it: every rename is durable; a roll forward may have removed some originals and temp names.
  for (const keptA of [true, false])
    for (const keptD of [true, false])
      for (const keptC of [true, false]) {
        it(`committed; originals of a ${keptA ? 'kept' : 'gone'}, of d ${keptD ? 'kept' : 'gone'}, temp of c ${keptC ? 'kept' : 'gone'}: every file new`, async () => {
          const ws = await setWorkspace();
          const names = await deadJournal(ws, true);
          await modifyStates['a: renamed']!(ws, names);
          await deleteStates['d: unlinked']!(ws, names);
          await createStates['c: linked']!(ws, names);
          if (!keptA) await rm(names.origA);
          if (!keptD) await rm(names.origD);
          if (!keptC) await rm(names.tempC);
          await recoverChangeSets(ws.journals, [ws.root]);
          expect(await ws.files()).toEqual(NEW);
          expect(await ws.litter()).toEqual([]);
          expect(await readdir(ws.journals)).toEqual([]);
        });
      }
});

describe('hasForeignJournals (asked before every read and write)', () => {
  it('sees a journal added after the folder was found clean, never its own process’s, none in a missing folder', async () => {
    const folder = await tempDir('editgate-journal-check-');
    made.push(folder);
    expect(hasForeignJournals(join(folder, 'missing'))).toBe(false);
    await writeFile(join(folder, `${process.pid}-mine.json`), '{}');
    // An mtime a minute old: the clean listing is remembered.
    const old = new Date(Date.now() - 60_000);
    await utimes(folder, old, old);
    expect(hasForeignJournals(folder)).toBe(false);
    expect(hasForeignJournals(folder)).toBe(false);
    await writeFile(join(folder, '999999999-theirs.json'), '{}');
    expect(hasForeignJournals(folder)).toBe(true);
  });
});
