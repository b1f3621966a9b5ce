import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultStateDir } from '../../src/tools/state-dir.js';
import { MAIN } from '../built-cli.js';
import { call, connectStdio, ensureBuilt } from '../mcp/helpers.js';
import { runWithoutTerminal } from './run-cli.js';

// Issue #33: MCP clients start servers without the XDG_* variables. When the state folder followed
// $XDG_STATE_HOME, a shell that set it kept history in one folder and the server in another, and
// `editgate undo` after an MCP session missed the session's change. The folder now follows the home
// folder alone (EDITGATE_STATE_DIR still moves it, for whoever sets it everywhere).

beforeAll(ensureBuilt, 120_000);

const made: string[] = [];
afterAll(() => {
  for (const folder of made) rmSync(folder, { recursive: true, force: true });
});

describe('the state folder', () => {
  it('is ~/.local/state/editgate whatever XDG_STATE_HOME says; EDITGATE_STATE_DIR moves it', () => {
    expect(defaultStateDir({ HOME: '/home/me' })).toBe('/home/me/.local/state/editgate');
    expect(defaultStateDir({ HOME: '/home/me', XDG_STATE_HOME: '/elsewhere' })).toBe(
      '/home/me/.local/state/editgate',
    );
    expect(defaultStateDir({ HOME: '/home/me', EDITGATE_STATE_DIR: '/mine' })).toBe('/mine');
  });

  it('an edit over MCP from a server started with only HOME and PATH is undone from a shell with XDG_STATE_HOME set', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'editgate-home-')));
    made.push(home);
    const project = join(home, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'a.txt'), 'one\n');
    writeFileSync(
      join(project, 'editgate.config.json'),
      JSON.stringify({ policy: { rules: [{ action: 'allow' }] } }),
    );
    // As a client starts it: `env -i HOME=... PATH=...`, no XDG_*, no EDITGATE_STATE_DIR.
    const clientEnv = { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin' };
    // The shell's own: XDG_STATE_HOME set to a folder of its choosing. The trust given here must count for
    // the server too (trust records live in the same folder as history).
    const shellEnv = { ...clientEnv, XDG_STATE_HOME: join(home, 'xdg-state') };
    const trust = await runWithoutTerminal(process.execPath, [MAIN, 'trust', project, '--yes'], {
      cwd: project,
      env: shellEnv,
    });
    expect(trust.code, trust.stderr).toBe(0);

    const session = await connectStdio([project, '--approve', 'policy'], { env: clientEnv });
    try {
      await call(session.client, 'read_file', { file_path: 'a.txt' });
      const edit = await call(session.client, 'edit_file', {
        file_path: 'a.txt',
        old_string: 'one',
        new_string: 'ONE',
      });
      expect(edit.isError, edit.text).toBe(false);
    } finally {
      await session.close();
    }
    expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('ONE\n');

    const undo = await runWithoutTerminal(process.execPath, [MAIN, 'undo', 'a.txt', '--yes'], {
      cwd: project,
      env: shellEnv,
    });
    expect(undo.code, undo.stderr).toBe(0);
    expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('one\n');
  }, 60_000);
});
