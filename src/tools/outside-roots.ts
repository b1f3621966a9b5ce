import { realpathSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { EditgateError } from '../core/errors.js';

/**
 * The state folder (undo history) and the audit log must lie outside every root: inside one, whatever can
 * write the workspace (the model through a tool, a build, a cloned repository) could plant history entries
 * that undo then follows, or rewrite the record of what happened. Compared by real path (a link into a
 * root is inside it); a path not made yet is judged by the real path of its nearest existing folder.
 */
export function refuseInsideRoots(
  what: 'stateDir' | 'auditLog',
  path: string,
  roots: readonly string[],
): void {
  const root = rootHolding(path, roots);
  if (root !== undefined) {
    throw new EditgateError(
      'INVALID_INPUT',
      `${what} ${path} is inside the workspace root ${root}, where what edits the workspace could change it. Put it outside every root (the default state folder is ~/.local/state/editgate).`,
      { [what]: path, root },
    );
  }
  // A root inside the state folder is as bad: what writes the root writes the state folder's files.
  const within = what === 'stateDir' ? rootWithin(path, roots) : undefined;
  if (within !== undefined) {
    throw new EditgateError(
      'INVALID_INPUT',
      `The workspace root ${within} is inside the ${what} ${path}, where what edits the workspace could change editgate's own files. Give a root outside it.`,
      { [what]: path, root: within },
    );
  }
}

/** The first of `roots` that holds `path` (or is it), compared by real path; undefined when none does. */
export function rootHolding(path: string, roots: readonly string[]): string | undefined {
  const target = realPathOf(path);
  return roots.find((root) => isWithin(target, realPathOf(root)));
}

/** The first of `roots` that lies inside the folder `path` (or is it), compared by real path. */
export function rootWithin(path: string, roots: readonly string[]): string | undefined {
  const folder = realPathOf(path);
  return roots.find((root) => isWithin(realPathOf(root), folder));
}

function isWithin(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
}

function realPathOf(path: string): string {
  const missing: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      return join(realpathSync(current), ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return resolve(path);
      missing.push(basename(current));
      current = parent;
    }
  }
}
