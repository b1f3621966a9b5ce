import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO } from '../built-cli.js';

// `npm install` in a clone prints no warnings (issue #33: it printed about 24, an esbuild peer conflict and
// npm's notice of install scripts nobody had decided on). Both come back when a dependency moves: these
// say which, before a newcomer sees them.

const run = promisify(execFile);

async function npm(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return run('npm', args, { cwd: REPO }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? 1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );
}

describe('a quiet npm install', () => {
  it('has no invalid or missing dependency, peers included (npm ls --all): no ERESOLVE warning', async () => {
    const listed = await npm(['ls', '--all']);
    expect(listed.stderr).toBe('');
    // Other platforms' binaries are optional and absent (UNMET OPTIONAL): only an invalid version counts.
    expect(listed.stdout).not.toMatch(/\binvalid\b|UNMET (?!OPTIONAL)/);
    expect(listed.code).toBe(0);
  }, 60_000);

  it('decides on every install script (package.json allowScripts): no "not yet covered" notice', async () => {
    const scripts = await npm(['install-scripts', 'ls']);
    expect(scripts.code).toBe(0);
    expect(scripts.stdout.trim()).toBe('No packages with unreviewed install scripts.');
  }, 60_000);
});
