// No face of editgate takes a root that holds its state folder (issue #26): through `editgate proxy --root ~`
// the proxied server could write a change-set journal that the next recovery acted on, and a trust record
// that made a hostile config's hooks run. The proxy, the MCP server, the file commands and the chat refuse
// such a root at start, saying what to do (src/tools/state-dir.ts stateDirFor).
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN } from '../built-cli.js';
import { FILESYSTEM_SERVER } from '../proxy/helpers.js';
import { runWithoutTerminal } from './run-cli.js';

beforeAll(ensureBuilt, 120_000);

const made: string[] = [];
afterEach(() => {
  while (made.length > 0) rmSync(made.pop()!, { recursive: true, force: true });
});

/** A home folder with a project in it and editgate's state folder where XDG puts it: ~/.local/state/editgate. */
function home() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'editgate-home-')));
  made.push(base);
  const project = join(base, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'a.txt'), 'a\n');
  const stateHome = join(base, '.local', 'state');
  mkdirSync(stateHome, { recursive: true });
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && key !== 'EDITGATE_STATE_DIR') env[key] = value;
  // The state folder is the home folder's .local/state/editgate: HOME is all it takes.
  env.HOME = base;
  const run = (args: string[], cwd = base) =>
    runWithoutTerminal(process.execPath, [MAIN, ...args], { cwd, env });
  return { base, project, stateHome, run };
}

const REFUSAL =
  /The workspace root .* holds editgate's state folder .*editgate \(undo history, change-set journals, trust records\), where whatever writes the workspace could plant records editgate acts on\. Give a narrower root \(the project's folder\), or set EDITGATE_STATE_DIR to a folder outside every root/;

describe('a root that holds the state folder', () => {
  it('editgate proxy --root HOME: refused before the server starts', async () => {
    const h = home();
    const run = await h.run(['proxy', '--root', h.base, '--', process.execPath, FILESYSTEM_SERVER, h.base]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(REFUSAL);
    // Nothing was made in the state folder.
    expect(readdirSync(h.stateHome)).toEqual([]);
  });

  it('editgate proxy with the project as root (the state folder outside it) starts', async () => {
    const h = home();
    const run = await h.run([
      'proxy',
      '--root',
      h.project,
      '--',
      process.execPath,
      FILESYSTEM_SERVER,
      h.project,
    ]);
    expect(run.stderr).not.toMatch(REFUSAL);
    expect(run.code).toBe(0);
  });

  it('editgate mcp HOME: refused at start', async () => {
    const h = home();
    const run = await h.run(['mcp', h.base]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(REFUSAL);
  });

  it('editgate edit in HOME: refused, nothing written', async () => {
    const h = home();
    const run = await h.run(['edit', 'project/a.txt', '--old', 'a', '--new', 'b', '--yes']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(REFUSAL);
    expect(readFileSync(join(h.project, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('editgate chat -p in HOME: refused before the model is asked anything', async () => {
    const h = home();
    const run = await h.run(['chat', '--model', 'ollama/none', '-p', 'say hi', '--root', h.base]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(REFUSAL);
  });

  it('EDITGATE_STATE_DIR inside the project root: refused the same way', async () => {
    const h = home();
    const run = await runWithoutTerminal(process.execPath, [MAIN, 'mcp', h.project], {
      cwd: h.base,
      env: { ...process.env, EDITGATE_STATE_DIR: join(h.project, '.state') },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /The workspace root .*project holds editgate's state folder .*project\/\.state/,
    );
  });

  it('a root inside the state folder (its trust folder, say): refused too', async () => {
    const h = home();
    const trust = join(h.stateHome, 'editgate', 'trust');
    mkdirSync(trust, { recursive: true });
    const run = await h.run(['proxy', '--root', trust, '--', process.execPath, FILESYSTEM_SERVER, trust]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /The workspace root .*trust is inside editgate's state folder .*Give a root outside it/,
    );
  });
});
