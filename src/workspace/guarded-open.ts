/**
 * Opening a file the guard checked, so that nothing changed on the way after the check can send the open
 * elsewhere (issue #13, item 2). The guard walks a path once and answers with its canonical form; a process
 * that can write the workspace can then swap a folder on that path for a symlink to outside. Opening the
 * canonical path again by name would follow that symlink. So every open, create, rename, link and unlink
 * of a file inside a root goes through its folder *pinned*: the folder opened by walking from the root one
 * name at a time, each with O_NOFOLLOW | O_DIRECTORY (a symlink or a file where a folder was is refused),
 * then named relative to that open folder, with O_NOFOLLOW on the file's own name. On Linux a file in an
 * open folder is named `/proc/self/fd/N/NAME`: the kernel takes folder N as it is open, whatever its path
 * has become since (Node 20 has no openat). Elsewhere (no /proc) the names are full paths again and each
 * step of the walk is still opened with O_NOFOLLOW, which narrows the race but cannot close it.
 *
 * A folder pinned and then moved (not swapped for a link) stays a real folder; `assertStillAt` compares it
 * with a fresh walk right before the irreversible step, so it must still be the folder at the checked path.
 */
import { closeSync, constants, existsSync, fstatSync, mkdirSync, openSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { EditgateError } from '../core/errors.js';
import { isErrno } from './fs-errors.js';

/** Where a guarded path lies: the walk starts at its root (canonical, as the guard made it). */
export interface GuardedPlace {
  /**
   * The canonical root the path lies in. Without one (a path the caller vouches for, as in tests and tools
   * outside a workspace) the file's folder is opened by its name and only the file's own name is not
   * followed. Every base the workspace builds has one (workspace.ts, RootedBase), deletions included.
   */
  root?: string;
  /** Workspace-relative name for messages (never the absolute path). */
  display?: string;
}

/** Device and inode: which file (or folder) this is, whatever its name. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

const FOLDER_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** `/proc/self/fd`, where Linux names files of open folders; null where there is no such thing. */
const FD_FOLDER = process.platform === 'linux' && existsSync('/proc/self/fd') ? '/proc/self/fd' : null;

/** True where names inside a pinned folder go through the open folder itself (Linux with /proc). */
export const pinsByDescriptor = FD_FOLDER !== null;

/** A folder held open: names in it mean names in this very folder, wherever it has moved since. */
export class PinnedFolder {
  private closed = false;

  constructor(
    /** The open folder. */
    readonly fd: number,
    /** Its canonical path when it was opened. */
    readonly path: string,
  ) {}

  /** A path for `name` in this folder, for any fs call, valid while the folder is held. */
  entry(name: string): string {
    return FD_FOLDER ? `${FD_FOLDER}/${this.fd}/${name}` : path.join(this.path, name);
  }

  /** A path for the folder itself (to list it). */
  self(): string {
    return FD_FOLDER ? `${FD_FOLDER}/${this.fd}` : this.path;
  }

  identity(): FileIdentity {
    return identityOf(fstatSync(this.fd));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      closeSync(this.fd);
    } catch {}
  }
}

/**
 * The folder `folder` pinned: opened one name at a time from `place.root`, never following a link. Null when
 * a folder on the way does not exist (unless `create`, which makes the missing ones, as mkdir -p would, and
 * says which was the first it made). A link, or a file, where the guard saw a folder: OUTSIDE_ROOT, changed.
 */
export function pinFolder(
  folder: string,
  place: GuardedPlace,
  options: { create?: boolean } = {},
): { folder: PinnedFolder; created?: string } | null {
  const { root } = place;
  const inside =
    root !== undefined && (folder === root || folder.startsWith(root.endsWith('/') ? root : `${root}/`));
  if (!inside) {
    // A path the caller vouches for: its folder by name (as before pinning), made if asked.
    let created: string | undefined;
    if (options.create) created = mkdirSync(folder, { recursive: true });
    try {
      return {
        folder: new PinnedFolder(openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY), folder),
        created,
      };
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return null;
      throw error;
    }
  }
  let current = openFolder(root, root, place);
  let at = root;
  let created: string | undefined;
  try {
    const names =
      folder === root
        ? []
        : folder
            .slice(root.length)
            .split('/')
            .filter((name) => name !== '');
    for (const name of names) {
      if (name === '.' || name === '..') throw changedError(place.display);
      const next = `${at}/${name}`;
      let fd: number;
      try {
        fd = openSync(current.entry(name), FOLDER_FLAGS);
      } catch (error) {
        if (!isErrno(error, 'ENOENT')) throw pinFailure(error, place);
        if (!options.create) {
          current.close();
          return null;
        }
        try {
          mkdirSync(current.entry(name), 0o777);
          created ??= next;
        } catch (made) {
          if (!isErrno(made, 'EEXIST')) throw made;
        }
        try {
          fd = openSync(current.entry(name), FOLDER_FLAGS);
        } catch (again) {
          throw pinFailure(again, place);
        }
      }
      current.close();
      current = new PinnedFolder(fd, next);
      at = next;
    }
    return { folder: current, created };
  } catch (error) {
    current.close();
    throw error;
  }
}

/** The folder holding `file`, pinned; null when it does not exist. The caller closes it. */
export function pinParent(file: string, place: GuardedPlace, options: { create?: boolean } = {}) {
  return pinFolder(path.dirname(file), place, options);
}

/**
 * `name` in a pinned folder opened with `flags`, never following a link at that name. A link there:
 * OUTSIDE_ROOT, changed. Other errors are thrown as they come (ENOENT included).
 */
export function openIn(
  folder: PinnedFolder,
  name: string,
  flags: number,
  place: GuardedPlace,
  mode?: number,
): number {
  try {
    return openSync(folder.entry(name), flags | constants.O_NOFOLLOW, mode);
  } catch (error) {
    throw pinFailure(error, place);
  }
}

/**
 * `file` opened with `flags` through its pinned folder, or null when it (or a folder on the way) does not
 * exist. The descriptor is the caller's to close.
 */
export function openGuarded(file: string, flags: number, place: GuardedPlace): number | null {
  const pinned = pinParent(file, place);
  if (!pinned) return null;
  try {
    return openIn(pinned.folder, path.basename(file), flags, place);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return null;
    throw error;
  } finally {
    pinned.folder.close();
  }
}

/**
 * Removes the empty folders a create made, from `deepest` up to `top` (both canonical), each through its
 * pinned parent; stops at the first that is not empty. Never throws.
 */
export function removeEmptyFolders(deepest: string, top: string, place: GuardedPlace): void {
  let folder = deepest;
  for (;;) {
    const parent = path.dirname(folder);
    try {
      const pinned = pinFolder(parent, place);
      if (!pinned) return;
      try {
        rmdirSync(pinned.folder.entry(path.basename(folder)));
      } finally {
        pinned.folder.close();
      }
    } catch {
      return;
    }
    if (folder === top || parent === folder) return;
    folder = parent;
  }
}

/**
 * The pinned folder must still be the one a fresh walk finds at its path: right before a rename, so a
 * folder moved away (out of the root, say) after it was pinned is not written into.
 */
export function assertStillAt(folder: PinnedFolder, place: GuardedPlace): void {
  if (place.root === undefined) return;
  const fresh = pinFolder(folder.path, place);
  if (!fresh) throw changedError(place.display);
  try {
    if (!sameIdentity(fresh.folder.identity(), folder.identity())) throw changedError(place.display);
  } finally {
    fresh.folder.close();
  }
}

export function identityOf(stats: { dev: number | bigint; ino: number | bigint }): FileIdentity {
  return { dev: Number(stats.dev), ino: Number(stats.ino) };
}

export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** A folder or link on the checked path changed after the guard checked it. */
export function changedError(display: string | undefined): EditgateError {
  const shown = display === undefined ? 'The path' : `'${display}'`;
  return new EditgateError(
    'OUTSIDE_ROOT',
    `${shown} no longer leads to the file that was checked: a folder or link on the way changed after it was checked (another process is changing the workspace). Nothing was read or written through it; check the path and try again.`,
    { path: display, reason: 'changed' },
  );
}

function openFolder(folder: string, root: string, place: GuardedPlace): PinnedFolder {
  try {
    // The root is canonical (the guard made it so): its own name is not a link.
    return new PinnedFolder(openSync(folder, FOLDER_FLAGS), root);
  } catch (error) {
    throw pinFailure(error, place);
  }
}

/** ELOOP (a link at a name opened with O_NOFOLLOW) and ENOTDIR (a link or file where a folder was): changed. */
function pinFailure(error: unknown, place: GuardedPlace): unknown {
  return isErrno(error, 'ELOOP', 'ENOTDIR') ? changedError(place.display) : error;
}
