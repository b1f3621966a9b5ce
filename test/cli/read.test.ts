import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
import { cliWorkspace, runCli } from './run-cli.js';

// editgate read FILE: the numbered lines a model sees, so a person can pick a --range for editgate lines.

beforeAll(ensureBuilt, 120_000);

const numbered = (from: number, lines: string[]) =>
  lines.map((line, i) => `${String(from + i).padStart(6, ' ')}\t${line}`).join('\n');

describe('editgate read', () => {
  it('prints the numbered lines alone on standard output (exit 0)', async () => {
    const ws = cliWorkspace({ 'list.txt': 'alpha\nbeta\ngamma\n' });
    const run = await runCli(['read', 'list.txt'], { cwd: ws.root, stateDir: ws.stateDir });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(`${numbered(1, ['alpha', 'beta', 'gamma'])}\n`);
  });

  it('--offset and --limit page through the file; the note on standard error gives the next command', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
    const ws = cliWorkspace({ 'ten.txt': `${lines.join('\n')}\n` });
    const run = await runCli(['read', 'ten.txt', '--offset', '4', '--limit', '3'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${numbered(4, lines.slice(3, 6))}\n`);
    expect(run.stderr).toBe('(lines 4-6 of 10; next: editgate read ten.txt --offset 7)\n');
  });

  it('says when the file does not end with a newline, and when it is empty', async () => {
    const ws = cliWorkspace({ 'open.txt': 'a\nb', 'empty.txt': '' });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const open = await runCli(['read', 'open.txt'], at);
    expect(open.stdout).toBe(`${numbered(1, ['a', 'b'])}\n`);
    expect(open.stderr).toBe('(the file does not end with a newline)\n');
    const empty = await runCli(['read', 'empty.txt'], at);
    expect(empty).toMatchObject({ code: 0, stdout: '' });
    expect(empty.stderr).toContain('empty');
  });

  it('--json gives the tool result with the page in details', async () => {
    const ws = cliWorkspace({ 'list.txt': 'alpha\nbeta\n' });
    const run = await runCli(['read', 'list.txt', '--json'], { cwd: ws.root, stateDir: ws.stateDir });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      tool: 'read_file',
      ok: true,
      message: numbered(1, ['alpha', 'beta']),
      details: { path: 'list.txt', lines: 2, firstLine: 1, lastLine: 2 },
    });
  });

  it('a file in another encoding is read with --encoding', async () => {
    const ws = cliWorkspace({ 'latin.txt': Buffer.from('caf\xe9\n', 'latin1') });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const refused = await runCli(['read', 'latin.txt'], at);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('hint: the file is not UTF-8');
    const read = await runCli(['read', 'latin.txt', '--encoding', 'latin1'], at);
    expect(read).toMatchObject({ code: 0, stdout: `${numbered(1, ['café'])}\n` });
  });

  it('bad paging is an input error (exit 2); a missing file or a denied one is not', async () => {
    const config = { policy: { rules: [{ tool: 'read_file', path: 'secret.txt', action: 'deny' }] } };
    const ws = cliWorkspace({
      'list.txt': 'a\n',
      'secret.txt': 'x\n',
      'editgate.config.json': JSON.stringify(config),
    });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    for (const args of [
      ['read', 'list.txt', '--offset', '0'],
      ['read', 'list.txt', '--limit', 'ten'],
      ['read', 'list.txt', '--offset', '5'],
      ['read'],
    ]) {
      const run = await runCli(args, at);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stdout).toBe('');
    }
    expect((await runCli(['read', 'nowhere.txt'], at)).code).toBe(1);
    const denied = await runCli(['read', 'secret.txt'], at);
    expect(denied.code).toBe(3);
    expect(denied.stdout).toBe('');
  });
});
