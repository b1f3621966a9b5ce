/**
 * Language servers' diagnostics (#32 item 4) at the CLI, end to end: the built `editgate edit`, a trusted
 * config naming the real typescript-language-server, and a rule that refuses a change adding a diagnostic.
 * The refusal names the diagnostic, nothing is written, and when the command ends no server is left
 * running. An untrusted config starts no server and says so. One cold server start for the file.
 */
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
import { cliWorkspace, runCli } from './run-cli.js';

beforeAll(ensureBuilt, 300_000);

const BIN = resolve(import.meta.dirname, '../../node_modules/.bin');
const TS =
  'export function add(a: number, b: number): number {\n  return a + b;\n}\nexport const total: number = add(1, 2);\n';
const CONFIG = JSON.stringify({
  languageServers: {
    typescript: { command: [join(BIN, 'typescript-language-server'), '--stdio'], files: ['**/*.ts'] },
  },
  // A cold server on a loaded machine: the question waits for it here.
  languageServerBudgetMs: 240_000,
  policy: {
    rules: [
      { path: '**', action: 'allow' },
      { change: { diagnostics: true }, action: 'deny' },
    ],
  },
});

/** Processes whose working folder is `root` (a language server runs there). */
function processesIn(root: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readlinkSync(`/proc/${pid}/cwd`) === root) found.push(pid);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

describe('editgate edit with a language server', () => {
  it('refuses a change that adds a type error, naming it; writes nothing; leaves no server running', async () => {
    const files = {
      'a.ts': TS,
      'tsconfig.json': '{ "compilerOptions": { "strict": true } }\n',
      'editgate.config.json': CONFIG,
    };
    const ws = cliWorkspace(files);
    const run = await runCli(['--yes', 'edit', 'a.ts', '--old', 'add(1, 2)', '--new', 'add(1, "2")'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('DENIED_POLICY');
    expect(run.stderr).toMatch(
      /a\.ts:4: Argument of type 'string' is not assignable to parameter of type 'number'\. \(typescript 2345: an error this change adds\) \[lsp:typescript\]/,
    );
    expect(run.stderr).toContain("adds a language server's diagnostic: refused by rule diagnostics");
    expect(readFileSync(join(ws.root, 'a.ts'), 'utf8')).toBe(TS);
    // The servers were stopped when the command ended (tsserver with them).
    await expect.poll(() => processesIn(ws.root), { timeout: 10_000 }).toEqual([]);
  }, 300_000);

  it('an untrusted config starts no language server, and says so', async () => {
    const ws = cliWorkspace({ 'a.ts': TS });
    writeFileSync(join(ws.root, 'editgate.config.json'), CONFIG);
    const run = await runCli(['--yes', 'edit', 'a.ts', '--old', 'add(1, 2)', '--new', 'add(1, "2")'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(run.stderr).toContain('1 language server (never started)');
    expect(run.code).toBe(0);
    expect(processesIn(ws.root)).toEqual([]);
  }, 120_000);
});
