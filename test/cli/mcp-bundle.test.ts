/**
 * `editgate mcp` runs from one bundled file (scripts/bundle-mcp.mjs; src/cli/mcp-entry.ts says why). The
 * MCP tests run the server through it; these check what they cannot see: that the build made it, and that
 * it is whole. A bundle that imported editgate's own modules from dist/ would hold a second copy of the
 * module that tracks temp files, and a signal would then clean the copy that wrote none.
 */
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { MCP_BUNDLE as BUNDLE, ensureBuilt, MAIN, REPO } from '../built-cli.js';

const run = promisify(execFile);

beforeAll(async () => {
  await ensureBuilt();
}, 120_000);

describe('the bundled MCP server', () => {
  it('is built next to main.js, no older than it', () => {
    expect(statSync(BUNDLE).mtimeMs).toBeGreaterThanOrEqual(statSync(MAIN).mtimeMs);
  });

  it('imports nothing but Node built-ins: every module it runs is inside it, once', () => {
    const text = readFileSync(BUNDLE, 'utf8');
    const specifiers = [...text.matchAll(/^import\s[^;]*?from\s*["']([^"']+)["']/gm)].map((m) => m[1]);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((specifier) => !specifier!.startsWith('node:'))).toEqual([]);
    expect(text.match(/^function removeLeftoversOnSignals\(/gm)).toHaveLength(1);
  });

  it('answers `editgate mcp --help` and `--version` through main.js', async () => {
    const help = await run(process.execPath, [MAIN, 'mcp', '--help']);
    expect(help.stdout).toContain('--approve');
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    const version = await run(process.execPath, [MAIN, '--version']);
    expect(version.stdout.trim()).toBe(pkg.version);
  });
});
