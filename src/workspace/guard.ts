// CONTRACT STUB: owned by the workspace/guard helper, who replaces this file with the implementation.

export interface GuardOptions {
  /** One or more roots; relative input paths resolve against the first. */
  roots: string[];
  /** Globs (relative to a root, picomatch syntax, dot files included) refused even inside a root. Default ['.git/**', '.git']. */
  deny?: string[];
}

export interface ResolvedPath {
  /** Canonical real path of the file (symlinks inside the root followed to their target). */
  absolute: string;
  /** The canonical real root it lies in. */
  root: string;
  /** Path relative to that root, '/'-separated: what people and globs see. */
  relative: string;
  /** The file exists now (a regular file). */
  exists: boolean;
}

export declare class Guard {
  static create(options: GuardOptions): Promise<Guard>;
  readonly roots: readonly string[];
  /** Resolve and check a path a caller gave; throws EditgateError OUTSIDE_ROOT / INVALID_INPUT / IS_DIRECTORY. */
  resolve(input: string): Promise<ResolvedPath>;
  /** Check again, right before a write, that the path still resolves to the same place inside a root. */
  recheck(resolved: ResolvedPath): Promise<void>;
}
