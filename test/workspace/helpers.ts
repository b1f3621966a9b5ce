import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import {
  type CommitBase,
  type CommitOptions,
  commitChange,
  type Written,
} from '../../src/workspace/commit.js';
import type { Snapshot } from '../../src/workspace/read.js';
import { tempFolder } from '../temp-folder.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');

/** A new temp folder, removed when the test file is done (../temp-folder.ts). */
export async function tempDir(prefix = 'editgate-ws-'): Promise<string> {
  return tempFolder(prefix);
}

/**
 * A journal folder as a front end keeps one: `change-sets` in a state folder of its own (which holds the key
 * that seals journals: src/workspace/state-key.ts). Remove `state` when done.
 */
export async function journalFolder(
  prefix = 'editgate-state-',
): Promise<{ state: string; journals: string }> {
  const state = await tempDir(prefix);
  const journals = join(state, 'change-sets');
  await mkdir(journals);
  return { state, journals };
}

export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Run a command; true when it succeeded. Used to probe what this machine allows (mount, chattr). */
export function tryRun(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Child processes cannot import our TypeScript directly (Node 20 has no type stripping, tsx is not a
 * dependency) and must not depend on `npm run build` having run. So the modules a child needs are
 * transpiled here with the TypeScript compiler (a devDependency) into a folder under node_modules/.cache,
 * where Node still resolves our dependencies (proper-lockfile, iconv-lite). Returns that folder's `src`.
 */
export async function transpileForChildren(
  entry = 'src/workspace/commit.ts',
): Promise<{ src: string; cleanup: () => Promise<void> }> {
  await mkdir(join(repo, 'node_modules/.cache'), { recursive: true });
  const out = await mkdtemp(join(repo, 'node_modules/.cache/editgate-ws-test-'));
  const seen = new Set<string>();
  const queue = [join(repo, entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = await readFile(file, 'utf8');
    const js = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
      },
      fileName: file,
    }).outputText;
    const target = join(out, relative(repo, file)).replace(/\.ts$/, '.js');
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, js);
    // Follow relative imports (ours all end in .js and point at a .ts source).
    for (const match of source.matchAll(/from\s+'(\.{1,2}\/[^']+)\.js'/g)) {
      queue.push(resolve(dirname(file), `${match[1]}.ts`));
    }
  }
  return { src: join(out, 'src'), cleanup: () => rm(out, { recursive: true, force: true }) };
}

export const fixtures = join(here, 'fixtures');

/** The one commit with new text, encoded with the base's codec (what an edit of a file in memory commits). */
export function commitText(base: Snapshot, text: string, options?: CommitOptions): Promise<Written> {
  return commitChange(base, { type: 'text', text, codec: base.codec }, options);
}

/** The one commit of a deletion (undoing a creation). */
export function deleteFile(base: CommitBase, options?: CommitOptions): Promise<Written> {
  return commitChange(base, { type: 'delete' }, options);
}
