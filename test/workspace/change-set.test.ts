// Change sets: several files written all or nothing (src/workspace/change-set.ts), the journal a killed
// process leaves and the next one rolls back, and SIGKILLs at random moments of a 3-file commit.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, link, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { commitChanges, type SetMember } from '../../src/workspace/change-set.js';
import { journalText, recoverChangeSets } from '../../src/workspace/change-set-journal.js';
import { sha256 } from '../../src/workspace/fingerprint.js';
import { readSnapshot } from '../../src/workspace/read.js';
import { fixtures, isRoot, journalFolder, tempDir, transpileForChildren, tryRun } from './helpers.js';

function probeImmutable(): string | null {
  if (!isRoot) return null;
  const probe = execFileSync('mktemp', ['-d']).toString().trim();
  try {
    if (!tryRun('chattr', ['+i', probe])) return 'running as root and chattr +i is not available here';
    tryRun('chattr', ['-i', probe]);
    return null;
  } finally {
    tryRun('rmdir', [probe]);
  }
}
const noImmutable = probeImmutable();
if (noImmutable) console.log(`[change-set] skipping the refusing-folder test: ${noImmutable}`);
/** Forbid changes to `folder`: chmod for a normal user; root ignores that, so the immutable flag. */
const forbid = (folder: string) =>
  isRoot ? execFileSync('chattr', ['+i', folder]) : execFileSync('chmod', ['0555', folder]);
const allow = (folder: string) =>
  isRoot ? tryRun('chattr', ['-i', folder]) : tryRun('chmod', ['0755', folder]);

const made: string[] = [];
afterEach(async () => {
  while (made.length > 0) {
    const dir = made.pop()!;
    await chmod(dir, 0o700).catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
});

async function workspace(files: Record<string, string>) {
  const root = await tempDir('editgate-set-');
  const { state, journals } = await journalFolder('editgate-set-journal-');
  made.push(root, state);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(root, name, '..'), { recursive: true });
    await writeFile(join(root, name), text);
  }
  const text = (name: string) => readFile(join(root, name), 'utf8');
  const snapshot = (name: string) => readSnapshot(join(root, name), { display: name });
  const member = async (name: string, next: string | null): Promise<SetMember> => {
    const base = await snapshot(name);
    return {
      base,
      content: next === null ? { type: 'delete' } : { type: 'text', text: next, codec: base.codec },
    };
  };
  /** Every name in the workspace, recursively, so a leftover temp file or kept original shows. */
  const names = async () =>
    ((await readdir(root, { recursive: true })) as string[]).filter((name) => !name.endsWith('/')).sort();
  return { root, journals, text, member, names };
}

describe('commitChanges', () => {
  it('writes three files (a change, a creation, a deletion) and leaves no temp file, original or journal', async () => {
    const ws = await workspace({ 'a.txt': 'a1\n', 'sub/b.txt': 'b1\n', 'gone.txt': 'bye\n' });
    const written = await commitChanges(
      [
        await ws.member('a.txt', 'a2\n'),
        await ws.member('new/c.txt', 'c\n'),
        await ws.member('gone.txt', null),
      ],
      { journalDir: ws.journals },
    );
    expect(await ws.text('a.txt')).toBe('a2\n');
    expect(await ws.text('new/c.txt')).toBe('c\n');
    expect(await ws.names()).toEqual(['a.txt', 'new', 'new/c.txt', 'sub', 'sub/b.txt']);
    expect(await readdir(ws.journals)).toEqual([]);
    expect(written.map((each) => each.fingerprint === null)).toEqual([false, false, true]);
    // The reverse patch of the change holds the replaced bytes.
    expect(written[0]!.reverse).toMatchObject({ kind: 'memory' });
  });

  it('one stale file refuses the whole set with nothing written', async () => {
    const ws = await workspace({ 'a.txt': 'a1\n', 'b.txt': 'b1\n', 'c.txt': 'c1\n' });
    const members = [
      await ws.member('a.txt', 'a2\n'),
      await ws.member('b.txt', 'b2\n'),
      await ws.member('c.txt', 'c2\n'),
    ];
    await writeFile(join(ws.root, 'b.txt'), 'someone else\n');
    const refusal = commitChanges(members, { journalDir: ws.journals });
    await expect(refusal).rejects.toMatchObject({ code: 'STALE' });
    await expect(refusal).rejects.toThrow(
      /b\.txt.*The whole change set \(a\.txt, b\.txt, c\.txt\) was refused/s,
    );
    expect([await ws.text('a.txt'), await ws.text('b.txt'), await ws.text('c.txt')]).toEqual([
      'a1\n',
      'someone else\n',
      'c1\n',
    ]);
    expect(await ws.names()).toEqual(['a.txt', 'b.txt', 'c.txt']);
  });

  it('a rename failing part way puts back the files already renamed, and says so', async () => {
    const ws = await workspace({ 'a/1.txt': 'one\n', 'b/2.txt': 'two\n' });
    const members = [
      await ws.member('a/1.txt', 'ONE\n'),
      await ws.member('b/2.txt', 'TWO\n'),
      await ws.member('z/3.txt', 'three\n'),
    ];
    await mkdir(join(ws.root, 'z'));
    // Right before the renames (every temp written), something takes z/3.txt: its link fails, after a/1.txt
    // and b/2.txt were renamed into place (files are renamed in path order).
    members[2]!.verify = async () => {
      await writeFile(join(ws.root, 'z/3.txt'), 'intruder\n');
    };
    const failure = commitChanges(members, { journalDir: ws.journals });
    await expect(failure).rejects.toMatchObject({ code: 'STALE' });
    await expect(failure).rejects.toThrow(/files already renamed were put back/);
    expect([await ws.text('a/1.txt'), await ws.text('b/2.txt')]).toEqual(['one\n', 'two\n']);
    expect(await ws.names()).toEqual(['a', 'a/1.txt', 'b', 'b/2.txt', 'z', 'z/3.txt']);
    expect(await readdir(ws.journals)).toEqual([]);
  });

  it.skipIf(noImmutable !== null)(
    'a folder that refuses writes part way leaves every file as it was',
    async () => {
      const ws = await workspace({ 'a/1.txt': 'one\n', 'b/2.txt': 'two\n', 'z/3.txt': 'three\n' });
      const members = [
        await ws.member('a/1.txt', 'ONE\n'),
        await ws.member('b/2.txt', 'TWO\n'),
        await ws.member('z/3.txt', 'THREE\n'),
      ];
      // The folder turns read-only after the temp files are written: its rename is the one that fails, after
      // a/1.txt and b/2.txt were renamed.
      members[2]!.verify = async () => {
        forbid(join(ws.root, 'z'));
      };
      const failure = commitChanges(members, { journalDir: ws.journals });
      await expect(failure).rejects.toMatchObject({ code: 'PERMISSION' });
      await expect(failure).rejects.toThrow(/z\/3\.txt.*files already renamed were put back/s);
      allow(join(ws.root, 'z'));
      expect([await ws.text('a/1.txt'), await ws.text('b/2.txt'), await ws.text('z/3.txt')]).toEqual([
        'one\n',
        'two\n',
        'three\n',
      ]);
      // Only in the folder that refused writes can editgate's own temp file and kept original be left.
      const left = (await ws.names()).filter(
        (name) => !['a', 'b', 'z', 'a/1.txt', 'b/2.txt', 'z/3.txt'].includes(name),
      );
      expect(
        left.every((name) => /^z\/\.3\.txt\.editgate-\d+-[0-9a-f]+\.(tmp|orig)$/.test(name)),
        left.join(),
      ).toBe(true);
      expect(await readdir(ws.journals)).toEqual([]);
    },
  );

  it('a journal its writer died writing (a temp name) is removed by the next process; a live writer’s is kept', async () => {
    const ws = await workspace({ 'a.txt': 'a1\n' });
    // Killed while writing the journal: half of it, under the name it has until it is whole.
    await writeFile(join(ws.journals, '999999999-abc.json.writing'), '{"version":1,"pid":9999');
    await writeFile(join(ws.journals, `${process.pid}-def.json.writing`), '{"version":1');
    expect(await recoverChangeSets(ws.journals, [ws.root])).toBe(0);
    expect(await readdir(ws.journals)).toEqual([`${process.pid}-def.json.writing`]);
    expect(await ws.text('a.txt')).toBe('a1\n');
  });

  it('a journal left by a dead process is rolled back by the next one: every file old again', async () => {
    const ws = await workspace({ 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
    // What a process killed between its two renames leaves: a renamed, b not, both originals kept.
    const origA = join(ws.root, '.a.txt.editgate-999999-00000001.orig');
    const origB = join(ws.root, '.b.txt.editgate-999999-00000002.orig');
    const tempB = join(ws.root, '.b.txt.editgate-999999-00000003.tmp');
    await writeFile(origA, 'a1\n');
    await writeFile(join(ws.root, 'a.txt'), 'a2\n');
    await link(join(ws.root, 'b.txt'), origB);
    await writeFile(tempB, 'b2\n');
    await writeFile(
      join(ws.journals, '999999999-abc.json'),
      journalText(ws.journals, 999_999_999, [
        {
          path: join(ws.root, 'a.txt'),
          kind: 'modify',
          root: ws.root,
          orig: origA,
          temp: join(ws.root, '.a.txt.editgate-999999-00000004.tmp'),
          wrote: `sha256:${sha256(Buffer.from('a2\n'))}`,
        },
        {
          path: join(ws.root, 'b.txt'),
          kind: 'modify',
          root: ws.root,
          orig: origB,
          temp: tempB,
          wrote: `sha256:${sha256(Buffer.from('b2\n'))}`,
        },
      ]),
    );
    // Another root's process leaves it alone.
    expect(await recoverChangeSets(ws.journals, ['/elsewhere'])).toBe(0);
    expect(await recoverChangeSets(ws.journals, [ws.root])).toBe(1);
    expect([await ws.text('a.txt'), await ws.text('b.txt')]).toEqual(['a1\n', 'b1\n']);
    expect(await ws.names()).toEqual(['a.txt', 'b.txt']);
    expect(await readdir(ws.journals)).toEqual([]);
  });
});

describe('SIGKILL during 3-file commits', () => {
  const KILLS = 12;
  let compiled: Awaited<ReturnType<typeof transpileForChildren>>;
  let locks: string;
  beforeAll(async () => {
    compiled = await transpileForChildren('src/workspace/change-set.ts');
    locks = await tempDir('editgate-set-locks-');
  });
  afterAll(async () => {
    await compiled.cleanup();
    await rm(locks, { recursive: true, force: true });
  });

  // A fixed number of kills, not a time budget.
  it(`after each of ${KILLS} kills at random moments, the next process finds every file old or every file new`, {
    timeout: 120_000,
  }, async () => {
    const ws = await workspace({ 'a.txt': '0 a\n', 'b/b.txt': '0 b\n', 'c.txt': '0 c\n' });
    const files = ['a.txt', 'b/b.txt', 'c.txt'].map((name) => join(ws.root, name));
    const start = (run: number) => {
      const child = spawn(
        process.execPath,
        [join(fixtures, 'change-set-child.mjs'), compiled.src, ws.journals, ...files],
        {
          stdio: ['pipe', 'pipe', 'inherit'],
          // Own lock folder per child: a killed child's locks would otherwise be waited out.
          env: { ...process.env, EDITGATE_LOCK_DIR: join(locks, `run-${run}`) },
        },
      );
      const ready = new Promise<void>((resolve) => {
        createInterface({ input: child.stdout! }).on('line', (line) => {
          if (line === 'ready') resolve();
        });
      });
      return { child, ready, exited: once(child, 'exit') };
    };
    let rolledBack = 0;
    let generations = new Set<number>();
    for (let run = 0; run < KILLS; run++) {
      const current = start(run);
      await current.ready;
      current.child.stdin!.write('go\n');
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 150));
      current.child.kill('SIGKILL');
      await current.exited;
      // The next process: rolls back what the dead one left, then every file is of one generation.
      rolledBack += await recoverChangeSets(ws.journals, [ws.root]);
      const texts = await Promise.all(files.map((file) => readFile(file, 'utf8')));
      const seen = new Set(texts.map((text) => Number(text.split(' ')[0])));
      expect(seen.size, `run ${run}: files of different generations: ${[...seen].join(', ')}`).toBe(1);
      generations = new Set([...generations, ...seen]);
      expect(await readdir(ws.journals)).toEqual([]);
      expect((await ws.names()).filter((name) => name.endsWith('.orig'))).toEqual([]);
    }
    // The children did commit (the files moved on), so the kills landed among real commits.
    expect(Math.max(...generations)).toBeGreaterThan(0);
    console.log(
      `[change-set crash] ${KILLS} SIGKILLs; ${rolledBack} left a journal that the next process rolled back; files reached generation ${Math.max(...generations)}`,
    );
  });
});
