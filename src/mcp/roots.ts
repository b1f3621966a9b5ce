import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Root } from '@modelcontextprotocol/sdk/types.js';

export interface NarrowedRoots {
  /** The folders the session may use: inside a configured root and inside a client root. */
  roots: string[];
  /** Client roots that were left out, and why, for the log. */
  ignored: string[];
}

function within(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The real path of a folder; undefined for anything else or nothing. */
async function canonicalFolder(path: string): Promise<string | undefined> {
  try {
    const real = await realpath(path);
    return (await stat(real)).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Client roots narrow, never widen: the result is the intersection of the client's folders with the
 * configured ones. A client root inside a configured root is kept as is; a client root around a configured
 * root keeps only the configured root; a client root elsewhere, or not a file: URI, is ignored. Both sides
 * are compared as real paths, so a symlink cannot make a client root look inside. Order follows the client
 * (its first root is the base of relative paths).
 */
export async function narrowRoots(configured: readonly string[], clientRoots: readonly Root[]) {
  const real: string[] = [];
  for (const root of configured) real.push((await canonicalFolder(root)) ?? root);
  const result: NarrowedRoots = { roots: [], ignored: [] };
  const add = (path: string) => {
    if (!result.roots.includes(path)) result.roots.push(path);
  };
  for (const { uri } of clientRoots) {
    let path: string;
    try {
      if (!uri.startsWith('file:')) throw new Error('not a file: URI');
      path = fileURLToPath(uri);
    } catch {
      result.ignored.push(`${uri} (not a file: URI)`);
      continue;
    }
    const clientReal = await canonicalFolder(path);
    if (clientReal === undefined) {
      result.ignored.push(`${path} (no such folder)`);
      continue;
    }
    let matched = false;
    for (const root of real) {
      if (within(root, clientReal)) {
        add(clientReal);
        matched = true;
      } else if (within(clientReal, root)) {
        add(root);
        matched = true;
      }
    }
    if (!matched) result.ignored.push(`${path} (outside the configured roots)`);
  }
  return result;
}
