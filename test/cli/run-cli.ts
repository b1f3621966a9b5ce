import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MAIN } from '../built-cli.js';
import { tempFolder } from '../temp-folder.js';
import { trustConfig } from '../trusted-config.js';

/** A fresh workspace (its real path) with the given files, and a state folder of its own (undo history, trust). */
export function cliWorkspace(files: Record<string, string | Buffer> = {}): {
  root: string;
  stateDir: string;
} {
  const base = tempFolder('editgate-cli-');
  const root = join(base, 'root');
  const stateDir = join(base, 'state');
  mkdirSync(root);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), content);
  }
  // A config file among them is trusted, as its author would have (tests of an untrusted one write it later).
  if (Object.hasOwn(files, 'editgate.config.json')) trustConfig(join(root, 'editgate.config.json'), stateDir);
  return { root, stateDir };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI with no terminal at all: pipes for stdio and a new session (detached), so not even
 * /dev/tty can be opened. What a CI job or a harness sees.
 */
export function runCli(
  args: string[],
  options: { cwd: string; stateDir: string; stdin?: string; env?: Record<string, string> },
): Promise<CliRun> {
  return runWithoutTerminal(process.execPath, [MAIN, ...args], {
    cwd: options.cwd,
    env: { ...plainEnvironment(), EDITGATE_STATE_DIR: options.stateDir, ...options.env },
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
  });
}

/** Any program, run as runCli runs the CLI: pipes, a new session, no controlling terminal. */
export function runWithoutTerminal(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined>; stdin?: string },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: options.env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

/** This process's environment without colour settings (vitest may force colour; the CLI must decide alone). */
function plainEnvironment(): Record<string, string | undefined> {
  const env = { ...process.env };
  delete env.FORCE_COLOR;
  delete env.NO_COLOR;
  return env;
}
