// A change set a dead process left half renamed is rolled back before any read or write in its roots, by
// every entry point: the library (also when the journal appears after the gate was loaded), the CLI and the
// MCP server (src/workspace/workspace.ts recover, change-set-journal.ts).
import { linkSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { journalText } from '../../src/workspace/change-set-journal.js';
import { sha256 } from '../../src/workspace/fingerprint.js';
import { cliWorkspace, runCli } from '../cli/run-cli.js';
import {
  ALLOW_ALL_CONFIG,
  type Connected,
  call,
  connectStdio,
  ensureBuilt,
  STATE_DIR,
  workspace,
} from '../mcp/helpers.js';
import { makeWorkspace } from './workspace-fixture.js';

beforeAll(ensureBuilt, 120_000);

/**
 * What a process killed between the two renames of a 2-file set leaves: a.txt renamed (new content), b.txt
 * not yet, both originals kept, b's temp file there, and the journal of a pid that no longer runs.
 */
function plantHalfSet(root: string, journalDir: string, tag: string): void {
  const name = (file: string, n: number, kind: string) =>
    join(root, `.${file}.editgate-999999999-${tag}0${n}.${kind}`);
  const origA = name('a.txt', 1, 'orig');
  const tempA = name('a.txt', 2, 'tmp');
  const origB = name('b.txt', 3, 'orig');
  const tempB = name('b.txt', 4, 'tmp');
  writeFileSync(join(root, 'a.txt'), 'a old\n');
  writeFileSync(join(root, 'b.txt'), 'b old\n');
  linkSync(join(root, 'a.txt'), origA);
  linkSync(join(root, 'b.txt'), origB);
  writeFileSync(tempA, 'a new\n');
  writeFileSync(tempB, 'b new\n');
  renameSync(tempA, join(root, 'a.txt'));
  mkdirSync(journalDir, { recursive: true });
  // Sealed with the state folder's key, as editgate writes a journal (an unsealed one is never acted on).
  const wrote = (text: string) => `sha256:${sha256(Buffer.from(text))}`;
  writeFileSync(
    join(journalDir, `999999999-${tag}.json`),
    journalText(journalDir, 999_999_999, [
      { path: join(root, 'a.txt'), kind: 'modify', root, orig: origA, temp: tempA, wrote: wrote('a new\n') },
      { path: join(root, 'b.txt'), kind: 'modify', root, orig: origB, temp: tempB, wrote: wrote('b new\n') },
    ]),
  );
}

const text = (root: string, name: string) => readFileSync(join(root, name), 'utf8');
/** Temp files and kept originals left in the root. */
const litter = (root: string) => readdirSync(root).filter((name) => /\.(tmp|orig)$/.test(name));

const states: string[] = [];
let session: Connected | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
  while (states.length > 0) await rm(states.pop()!, { recursive: true, force: true });
});

describe('a dead process’s half-renamed change set', () => {
  it('library: rolled back before a read, also when the journal appears after the gate was loaded', async () => {
    const ws = await makeWorkspace({ 'other.txt': 'x\n' });
    const state = await mkdtemp(join(tmpdir(), 'editgate-recovery-state-'));
    states.push(state);
    const tools = ws.tools({ stateDir: state });
    // The gate is loaded, with nothing to recover yet.
    expect((await tools.execute('read_file', { file_path: 'other.txt' })).ok).toBe(true);
    // Another process dies part way through a set in this root.
    plantHalfSet(ws.root, join(state, 'change-sets'), 'aa');
    expect(text(ws.root, 'a.txt')).toBe('a new\n');
    const read = await tools.execute('read_file', { file_path: 'a.txt' });
    expect(read.ok, read.message).toBe(true);
    expect(read.message).toContain('a old');
    expect([text(ws.root, 'a.txt'), text(ws.root, 'b.txt')]).toEqual(['a old\n', 'b old\n']);
    expect(litter(ws.root)).toEqual([]);
    expect(readdirSync(join(state, 'change-sets'))).toEqual([]);

    // A write to another file rolls one back too, before it writes.
    plantHalfSet(ws.root, join(state, 'change-sets'), 'bb');
    const written = await tools.execute('write_file', { file_path: 'fresh.txt', content: 'hi\n' });
    expect(written.ok, written.message).toBe(true);
    expect([text(ws.root, 'a.txt'), text(ws.root, 'b.txt')]).toEqual(['a old\n', 'b old\n']);
    expect(readdirSync(join(state, 'change-sets'))).toEqual([]);
  });

  it('CLI: `editgate edit` finds the file as it was before the set, and writes on that', async () => {
    const ws = cliWorkspace({});
    plantHalfSet(ws.root, join(ws.stateDir, 'change-sets'), 'cc');
    const run = await runCli(['edit', 'a.txt', '--old', 'a old', '--new', 'a edited', '--yes'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(run.code, run.stderr).toBe(0);
    expect([text(ws.root, 'a.txt'), text(ws.root, 'b.txt')]).toEqual(['a edited\n', 'b old\n']);
    expect(litter(ws.root)).toEqual([]);
    expect(readdirSync(join(ws.stateDir, 'change-sets'))).toEqual([]);
  });

  it('CLI: a file of the set you edited since is left as you made it, and standard error says so', async () => {
    const ws = cliWorkspace({});
    plantHalfSet(ws.root, join(ws.stateDir, 'change-sets'), 'ee');
    // a.txt was renamed into place before the crash; the person edits it before any editgate runs.
    writeFileSync(join(ws.root, 'a.txt'), 'a new\nmy line\n');
    const run = await runCli(['read', 'b.txt'], { cwd: ws.root, stateDir: ws.stateDir });
    expect(run.code, run.stderr).toBe(0);
    expect([text(ws.root, 'a.txt'), text(ws.root, 'b.txt')]).toEqual(['a new\nmy line\n', 'b old\n']);
    expect(run.stderr).toMatch(
      /editgate recovery: a\.txt changed after the interrupted change set wrote it, so it was left as it is; its content from before the set is kept in \S+\.orig/,
    );
    expect(litter(ws.root)).toEqual(['.a.txt.editgate-999999999-ee01.orig']);
    expect(readdirSync(join(ws.stateDir, 'change-sets'))).toEqual([]);
  });

  it('MCP server: a journal left after the server started is rolled back before the next call', async () => {
    const root = workspace({ 'editgate.config.json': ALLOW_ALL_CONFIG, 'other.txt': 'x\n' });
    session = await connectStdio([root, '--approve', 'policy']);
    expect((await call(session.client, 'read_file', { file_path: 'other.txt' })).isError).toBe(false);
    plantHalfSet(root, join(STATE_DIR, 'change-sets'), 'dd');
    const read = await call(session.client, 'read_file', { file_path: 'b.txt' });
    expect(read.isError, read.text).toBe(false);
    expect([text(root, 'a.txt'), text(root, 'b.txt')]).toEqual(['a old\n', 'b old\n']);
    expect(litter(root)).toEqual([]);
    expect(readdirSync(join(STATE_DIR, 'change-sets'))).toEqual([]);
  });
});
