/**
 * The built CLI (dist/cli/main.js) for end-to-end tests that run editgate as a process. There is no
 * TypeScript runner for the child process, so the tests use the build: ensureBuilt() runs
 * `tsc -p tsconfig.build.json` (and the MCP bundle) once when dist/cli/main.js or the bundle is missing or
 * older than any file under src/ (test files run in parallel processes, so a lock folder makes them build
 * one at a time).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
export const MAIN = join(REPO, 'dist', 'cli', 'main.js');
/** The one-file MCP server (scripts/bundle-mcp.mjs), which main.js runs for `editgate mcp`. */
export const MCP_BUNDLE = join(REPO, 'dist', 'cli', 'mcp-server.bundle.mjs');

function newestMtime(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function isFresh(): boolean {
  try {
    const built = Math.min(statSync(MAIN).mtimeMs, statSync(MCP_BUNDLE).mtimeMs);
    return built >= newestMtime(join(REPO, 'src'));
  } catch {
    return false;
  }
}

export async function ensureBuilt(): Promise<void> {
  if (isFresh()) return;
  const lock = join(tmpdir(), `editgate-build-${Buffer.from(REPO).toString('hex').slice(-32)}.lock`);
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    if (isFresh()) return;
    try {
      execFileSync(join(REPO, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], {
        cwd: REPO,
        stdio: 'pipe',
      });
    } catch {
      // Type errors elsewhere in the tree still emit JavaScript; what matters is that main.js exists.
    }
    // What tsc does not emit: the web review page's script and stylesheet, and the one-file MCP server
    // (main.ts runs it for `editgate mcp` whenever it exists, so a stale one must never be left).
    for (const script of ['copy-web-assets.mjs', 'bundle-mcp.mjs']) {
      execFileSync(process.execPath, [join(REPO, 'scripts', script)], { cwd: REPO, stdio: 'pipe' });
    }
    statSync(MAIN);
  } finally {
    rmdirSync(lock);
  }
}
