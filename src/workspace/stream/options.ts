import type { ProgressCallback } from './progress.js';

/** Tuning shared by everything on the streaming path. Defaults suit production; tests shrink them. */
export interface StreamOptions {
  /** Bytes per read and write. Default 1 MiB. Tests use a few bytes to put matches across chunk borders. */
  chunkSize?: number;
  /** Bytes between line-index checkpoints (raised for very large files). Default 16 KiB. */
  indexStride?: number;
  onProgress?: ProgressCallback;
  /** Smallest file whose unchanged prefix the filesystem copies (a reflink). Default 8 MiB. */
  kernelCopyMin?: number;
  /** 'reflink' (default): only a shared-extent copy; 'copy': also copy_file_range (tests). */
  kernelCopy?: 'reflink' | 'copy';
}

export const DEFAULT_CHUNK_SIZE = 1 << 20;
export const DEFAULT_INDEX_STRIDE = 1 << 14;

export function chunkSizeOf(options: StreamOptions): number {
  const size = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  return Math.max(1, Math.floor(size));
}
