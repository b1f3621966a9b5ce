import { lstat, open } from 'node:fs/promises';
import type { WalkEntry, WorkspaceScope } from './scope.js';

/**
 * What a shell command did to the workspace's files: the state of every file the walk sees (inside the
 * root, not denied, not ignored) before the command, compared with after it. Small files keep their bytes
 * from one command to the next (re-read only when their size, mtime or inode changed), so the "before" of a
 * change is known and /undo can put it back; a file over the size limit is reported as changed, without
 * bytes.
 */
export interface FileState {
  size: number;
  mtimeMs: number;
  ino: number;
  /** The content, when small enough to keep. */
  bytes?: Buffer;
}

export type FileStates = Map<string, FileState>;

export interface FileChange {
  relative: string;
  absolute: string;
  /** null: the file did not exist; undefined: too large to have been kept. */
  before: Buffer | null | undefined;
  /** null: the command deleted it; undefined: too large to read. */
  after: Buffer | null | undefined;
}

export interface FileChangeOptions {
  /** Files larger than this are tracked by their size and time only. Default 1 MiB. */
  maxFileBytes?: number;
  /** At most this many bytes are kept in all. Default 64 MiB. */
  maxTotalBytes?: number;
  /** At most this many files are looked at. Default 20 000. */
  maxFiles?: number;
}

export class FileChangeTracker {
  private known: FileStates = new Map();
  private readonly maxFileBytes: number;
  private readonly maxTotalBytes: number;
  private readonly maxFiles: number;

  constructor(
    private readonly scope: WorkspaceScope,
    options: FileChangeOptions = {},
  ) {
    this.maxFileBytes = options.maxFileBytes ?? 1024 * 1024;
    this.maxTotalBytes = options.maxTotalBytes ?? 64 * 1024 * 1024;
    this.maxFiles = options.maxFiles ?? 20_000;
  }

  /** The files as they are now (call before a command). */
  async capture(): Promise<FileStates> {
    this.known = await this.read(this.known);
    return this.known;
  }

  /** What changed since `before` (call after the command). */
  async changesSince(before: FileStates): Promise<FileChange[]> {
    const after = await this.read(before);
    const changes: FileChange[] = [];
    for (const [relative, now] of after) {
      const was = before.get(relative);
      if (was && sameStat(was, now)) continue;
      if (was?.bytes && now.bytes && was.bytes.equals(now.bytes)) continue; // touched, not changed
      changes.push({
        relative,
        absolute: this.absolute(relative),
        before: was ? was.bytes : null,
        after: now.bytes,
      });
    }
    for (const [relative, was] of before) {
      if (after.has(relative)) continue;
      changes.push({ relative, absolute: this.absolute(relative), before: was.bytes, after: null });
    }
    this.known = after;
    return changes.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
  }

  /** Forget what is known of a file (after /undo rewrote it, the next capture reads it again). */
  forget(relative: string): void {
    this.known.delete(relative);
  }

  private absolute(relative: string): string {
    return `${this.scope.root}/${relative}`;
  }

  private async read(previous: FileStates): Promise<FileStates> {
    const states: FileStates = new Map();
    let kept = 0;
    let files = 0;
    const root = { absolute: this.scope.root, relative: '' };
    for await (const entry of this.scope.walk(root, () => files >= this.maxFiles)) {
      if (entry.isDir) continue;
      files++;
      const state = await this.stateOf(entry, previous.get(entry.relative), kept);
      if (!state) continue;
      if (state.bytes) kept += state.bytes.length;
      states.set(entry.relative, state);
    }
    return states;
  }

  private async stateOf(
    entry: WalkEntry,
    previous: FileState | undefined,
    kept: number,
  ): Promise<FileState | undefined> {
    let stats: Awaited<ReturnType<typeof lstat>>;
    try {
      stats = await lstat(entry.absolute);
    } catch {
      return undefined; // gone between the listing and now
    }
    const state: FileState = { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
    if (previous && sameStat(previous, state)) {
      if (previous.bytes) state.bytes = previous.bytes;
      return state;
    }
    if (stats.size <= this.maxFileBytes && kept + stats.size <= this.maxTotalBytes) {
      state.bytes = await readAll(entry.absolute);
    }
    return state;
  }
}

function sameStat(a: FileState, b: FileState): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

async function readAll(path: string): Promise<Buffer | undefined> {
  try {
    const handle = await open(path, 'r');
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

export function changeKind(change: FileChange): 'created' | 'deleted' | 'modified' {
  return change.before === null ? 'created' : change.after === null ? 'deleted' : 'modified';
}
