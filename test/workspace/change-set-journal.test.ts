// A change-set journal is data, never an instruction (issue #26): recovery acts only on a journal sealed with
// the state folder's key, whose every file lies in the root it names and whose every rename goes through the
// file's folder pinned from that root; and it leaves a file a person changed after the crash as it is
// (src/workspace/change-set-journal.ts, state-key.ts).
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type JournalEntry,
  journalText,
  recoverChangeSets,
  writtenStat,
} from '../../src/workspace/change-set-journal.js';
import { sha256 } from '../../src/workspace/fingerprint.js';
import { KEY_FILE } from '../../src/workspace/state-key.js';
import { fixtures, journalFolder, tempDir, transpileForChildren } from './helpers.js';

const made: string[] = [];
afterEach(async () => {
  while (made.length > 0) await rm(made.pop()!, { recursive: true, force: true });
});

const DEAD = 999_999_999;
const wrote = (text: string) => `sha256:${sha256(Buffer.from(text))}`;
const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

/** A root, a folder outside it (what an attacker aims at), and a state folder with its journal folder. */
async function setting() {
  const root = await tempDir('editgate-journal-root-');
  const outside = await tempDir('editgate-journal-outside-');
  const { state, journals } = await journalFolder();
  made.push(root, outside, state);
  writeFileSync(join(root, 'in.txt'), 'in old\n');
  writeFileSync(join(outside, 'victim.txt'), 'precious\n');
  writeFileSync(join(outside, 'payload'), 'planted\n');
  const reports: string[] = [];
  const recover = () => recoverChangeSets(journals, [root], { onReport: (message) => reports.push(message) });
  return { root, outside, state, journals, reports, recover };
}

/**
 * The entries a planted journal uses: one file in the root (so the root's process takes the journal up) and
 * the attack: replace victim.txt outside the root with the payload, and delete another outside file.
 */
function attack(root: string, outside: string): JournalEntry[] {
  return [
    {
      path: join(root, 'in.txt'),
      kind: 'modify',
      root,
      orig: join(root, '.in.txt.editgate-1-00000001.orig'),
      temp: join(root, '.in.txt.editgate-1-00000002.tmp'),
      wrote: wrote('in new\n'),
    },
    { path: join(outside, 'victim.txt'), kind: 'modify', root, orig: join(outside, 'payload') },
  ];
}

describe('a journal planted in the state folder', () => {
  it('unsealed (the old format, as an attacker writes it): nothing outside the root is touched; set aside and reported', async () => {
    const s = await setting();
    const entries = attack(s.root, s.outside);
    writeFileSync(
      join(s.journals, `${DEAD}-aaaa.json`),
      JSON.stringify({
        version: 1,
        pid: DEAD,
        entries: entries.map(({ root: _, wrote: __, ...rest }) => rest),
      }),
    );
    expect(await s.recover()).toBe(0);
    expect(read(join(s.outside, 'victim.txt'))).toBe('precious\n');
    expect(read(join(s.outside, 'payload'))).toBe('planted\n');
    expect(readdirSync(s.journals)).toEqual([`${DEAD}-aaaa.json.unverified`]);
    expect(s.reports.join('\n')).toContain('was not acted on: it is not sealed with this state folder’s key');
    expect(s.reports.join('\n')).toContain(
      `It is kept as ${join(s.journals, `${DEAD}-aaaa.json.unverified`)}`,
    );
    // Set aside: the next recovery does not read it again, nor report it twice.
    expect(await s.recover()).toBe(0);
    expect(s.reports).toHaveLength(1);
  });

  it('sealed with another key (a forged MAC): refused the same way', async () => {
    const s = await setting();
    const other = await journalFolder('editgate-other-state-');
    made.push(other.state);
    // A journal sealed under another state folder's key, copied into this one.
    writeFileSync(
      join(s.journals, `${DEAD}-bbbb.json`),
      journalText(other.journals, DEAD, attack(s.root, s.outside)),
    );
    expect(await s.recover()).toBe(0);
    expect(read(join(s.outside, 'victim.txt'))).toBe('precious\n');
    expect(readdirSync(s.journals)).toEqual([`${DEAD}-bbbb.json.unverified`]);
  });

  it('a changed byte in a sealed journal breaks the seal', async () => {
    const s = await setting();
    const text = journalText(s.journals, DEAD, attack(s.root, s.outside).slice(0, 1));
    writeFileSync(join(s.journals, `${DEAD}-cccc.json`), text.replace('in.txt', 'in.txx'));
    expect(await s.recover()).toBe(0);
    expect(readdirSync(s.journals)).toEqual([`${DEAD}-cccc.json.unverified`]);
  });

  it('sealed, but naming a file outside its root, in .git, or a kept original that is not beside its file: refused, nothing touched', async () => {
    const s = await setting();
    mkdirSync(join(s.root, '.git'));
    writeFileSync(join(s.root, '.git', 'config'), '[core]\n');
    const inRoot = attack(s.root, s.outside)[0]!;
    const cases: Record<string, JournalEntry[]> = {
      outside: attack(s.root, s.outside),
      git: [
        inRoot,
        {
          path: join(s.root, '.git', 'config'),
          kind: 'delete',
          root: s.root,
          orig: join(s.root, '.git', '.config.editgate-1-00000003.orig'),
        },
      ],
      elsewhere: [{ ...inRoot, orig: join(s.outside, 'payload') }],
      notTemp: [{ ...inRoot, orig: join(s.root, 'in.txt.bak') }],
      dotdot: [{ ...inRoot, path: `${s.root}/../${s.outside.split('/').pop()}/victim.txt` }],
    };
    for (const [name, entries] of Object.entries(cases)) {
      writeFileSync(join(s.journals, `${DEAD}-${name}.json`), journalText(s.journals, DEAD, entries));
    }
    expect(await s.recover()).toBe(0);
    expect(read(join(s.outside, 'victim.txt'))).toBe('precious\n');
    expect(read(join(s.root, '.git', 'config'))).toBe('[core]\n');
    expect(readdirSync(s.journals).sort()).toEqual(
      Object.keys(cases)
        .map((name) => `${DEAD}-${name}.json.refused`)
        .sort(),
    );
    expect(s.reports).toHaveLength(Object.keys(cases).length);
  });

  it('sealed, its file reached through a link to outside the root: the pinned folder refuses the link, the outside file stays', async () => {
    const s = await setting();
    symlinkSync(s.outside, join(s.root, 'out'));
    const victim = join(s.root, 'out', 'victim.txt');
    const orig = join(s.root, 'out', '.victim.txt.editgate-1-00000005.orig');
    writeFileSync(join(s.outside, '.victim.txt.editgate-1-00000005.orig'), 'planted\n');
    writeFileSync(
      join(s.journals, `${DEAD}-link.json`),
      journalText(s.journals, DEAD, [
        {
          path: victim,
          kind: 'modify',
          root: s.root,
          orig,
          temp: join(s.root, 'out', '.victim.txt.editgate-1-00000006.tmp'),
          wrote: wrote('precious\n'),
        },
      ]),
    );
    expect(await s.recover()).toBe(0);
    expect(read(join(s.outside, 'victim.txt'))).toBe('precious\n');
    expect(s.reports.join('\n')).toContain('failed for');
  });

  it('a key file others can read, or a link, is refused with what to do, and no journal is believed', async () => {
    const s = await setting();
    const entries = attack(s.root, s.outside).slice(0, 1);
    writeFileSync(join(s.journals, `${DEAD}-key.json`), journalText(s.journals, DEAD, entries));
    chmodSync(join(s.state, KEY_FILE), 0o644);
    // A key read before is not read again in this process: a fresh folder name shows the check.
    const moved = `${s.state}-moved`;
    renameSync(s.state, moved);
    made.push(moved);
    const reports: string[] = [];
    await recoverChangeSets(join(moved, 'change-sets'), [s.root], { onReport: (m) => reports.push(m) });
    expect(reports.join('\n')).toContain(
      'is not one editgate made for this user (others may read or write it)',
    );
    expect(reports.join('\n')).toContain('remove the file');
    expect(readdirSync(join(moved, 'change-sets'))).toEqual([`${DEAD}-key.json.unverified`]);
  });
});

describe('what else may lie in the journal folder', () => {
  it('a FIFO or a link named as a journal is set aside without waiting on it or following it', async () => {
    const s = await setting();
    execFileSync('mkfifo', [join(s.journals, `${DEAD}-fifo.json`)]);
    // A link to a genuine sealed journal elsewhere: not read through.
    const elsewhere = join(s.outside, 'sealed.json');
    writeFileSync(elsewhere, journalText(s.journals, DEAD, attack(s.root, s.outside).slice(0, 1)));
    symlinkSync(elsewhere, join(s.journals, `${DEAD}-link.json`));
    expect(await s.recover()).toBe(0);
    expect(readdirSync(s.journals).sort()).toEqual([
      `${DEAD}-fifo.json.unverified`,
      `${DEAD}-link.json.unverified`,
    ]);
    expect(s.reports).toHaveLength(2);
  });

  it('a streamed file’s entry (its temp file’s stat recorded): put back when untouched, left when edited', async () => {
    const s = await setting();
    const set = (name: string) => {
      const path = join(s.root, name);
      const orig = join(s.root, `.${name}.editgate-1-0000000a.orig`);
      const temp = join(s.root, `.${name}.editgate-1-0000000b.tmp`);
      writeFileSync(path, 'old\n');
      writeFileSync(temp, 'new\n');
      const entry: JournalEntry = {
        path,
        kind: 'modify',
        root: s.root,
        orig,
        temp,
        wrote: writtenStat(lstatSync(temp, { bigint: true })),
      };
      linkSync(path, orig);
      renameSync(temp, path);
      return entry;
    };
    const untouched = set('huge-a.log');
    const edited = set('huge-b.log');
    // An edit a second later: the mtime moves (as any write does).
    const later = new Date(Date.now() + 1000);
    writeFileSync(edited.path, 'new\nmine\n', { flag: 'r+' });
    utimesSync(edited.path, later, later);
    writeFileSync(join(s.journals, `${DEAD}-huge.json`), journalText(s.journals, DEAD, [untouched, edited]));
    expect(await s.recover()).toBe(1);
    expect(read(untouched.path)).toBe('old\n');
    expect(read(edited.path)).toBe('new\nmine\n');
    expect(s.reports).toHaveLength(1);
    expect(s.reports[0]).toContain('huge-b.log changed after the interrupted change set wrote it');
  });
});

describe('a person’s edit after an interrupted change set', () => {
  let compiled: Awaited<ReturnType<typeof transpileForChildren>>;
  let locks: string;
  beforeAll(async () => {
    compiled = await transpileForChildren('src/workspace/change-set.ts');
    locks = await tempDir('editgate-journal-locks-');
  });
  afterAll(async () => {
    await compiled.cleanup();
    await rm(locks, { recursive: true, force: true });
  });

  /** A real 3-file commit (a.txt changed, d.txt deleted, new/deep/c.txt created) SIGKILLed after `step`. */
  async function interrupted(step: string) {
    const root = await tempDir('editgate-journal-edit-');
    const { state, journals } = await journalFolder();
    made.push(root, state);
    writeFileSync(join(root, 'a.txt'), 'a old\n');
    writeFileSync(join(root, 'd.txt'), 'd old\n');
    const child = spawn(
      process.execPath,
      [join(fixtures, 'change-set-step-child.mjs'), compiled.src, journals, root, step],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
        env: { ...process.env, EDITGATE_LOCK_DIR: join(locks, step) },
      },
    );
    const [, signal] = await once(child, 'exit');
    expect(signal).toBe('SIGKILL');
    const reports: string[] = [];
    const recover = () =>
      recoverChangeSets(journals, [root], { onReport: (message) => reports.push(message) });
    return { root, journals, reports, recover };
  }

  it('an edit saved over the renamed file (a new file, as editors save) is left; the rest of the set goes back', async () => {
    const ws = await interrupted('renamed:2');
    expect(read(join(ws.root, 'a.txt'))).toBe('a new\n');
    writeFileSync(join(ws.root, 'a.txt.swp'), 'a new\nmy edit\n');
    renameSync(join(ws.root, 'a.txt.swp'), join(ws.root, 'a.txt'));
    expect(await ws.recover()).toBe(1);
    expect(read(join(ws.root, 'a.txt'))).toBe('a new\nmy edit\n');
    expect(read(join(ws.root, 'd.txt'))).toBe('d old\n');
    expect(read(join(ws.root, 'new/deep/c.txt'))).toBeNull();
    expect(ws.reports).toHaveLength(1);
    expect(ws.reports[0]).toMatch(
      /^a\.txt changed after the interrupted change set wrote it, so it was left as it is; its content from before the set is kept in .*\.a\.txt\.editgate-\d+-[0-9a-f]+\.orig/,
    );
    // Nothing is lost: the content from before the set is where the report says.
    const kept = /kept in (\S+\.orig)/.exec(ws.reports[0]!)![1]!;
    expect(read(kept)).toBe('a old\n');
    expect(readdirSync(ws.journals)).toEqual([]);
  });

  it('an edit written into the renamed file in place, and into the created file, are left too', async () => {
    const ws = await interrupted('renames-durable');
    writeFileSync(join(ws.root, 'a.txt'), 'a new\nedited in place\n', { flag: 'r+' });
    writeFileSync(join(ws.root, 'new/deep/c.txt'), 'c new\nmine\n', { flag: 'r+' });
    expect(await ws.recover()).toBe(1);
    expect(read(join(ws.root, 'a.txt'))).toBe('a new\nedited in place\n');
    expect(read(join(ws.root, 'new/deep/c.txt'))).toBe('c new\nmine\n');
    expect(read(join(ws.root, 'd.txt'))).toBe('d old\n');
    expect(ws.reports.join('\n')).toContain(
      'new/deep/c.txt, which the interrupted change set created, changed after it was written',
    );
    // The created file is no longer a second link of a temp file the guard would refuse.
    expect(readdirSync(join(ws.root, 'new/deep'))).toEqual(['c.txt']);
  });

  it('a file deleted by the set and made again by a person stays; untouched files still go back', async () => {
    const ws = await interrupted('renamed:2');
    writeFileSync(join(ws.root, 'd.txt'), 'd made again\n');
    expect(await ws.recover()).toBe(1);
    expect(read(join(ws.root, 'd.txt'))).toBe('d made again\n');
    expect(read(join(ws.root, 'a.txt'))).toBe('a old\n');
    expect(read(join(ws.root, 'new/deep/c.txt'))).toBeNull();
    expect(ws.reports).toHaveLength(1);
  });

  it('with no edit, every file goes back and nothing is reported', async () => {
    const ws = await interrupted('renamed:1');
    expect(await ws.recover()).toBe(1);
    expect([read(join(ws.root, 'a.txt')), read(join(ws.root, 'd.txt'))]).toEqual(['a old\n', 'd old\n']);
    expect(ws.reports).toEqual([]);
  });
});
