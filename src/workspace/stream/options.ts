import type { ProgressCallback } from './progress.js';

/** Tuning shared by everything on the streaming path. Defaults suit production; tests shrink them. */
export interface StreamOptions {
  /** Bytes per read and write. Default 1 MiB. Tests use a few bytes to put matches across chunk borders. */
  chunkSize?: number;
  /** Bytes between line-index checkpoints (raised for very large files). Default 64 KiB. */
  indexStride?: number;
  onProgress?: ProgressCallback;
}

export const DEFAULT_CHUNK_SIZE = 1 << 20;
export const DEFAULT_INDEX_STRIDE = 1 << 16;

export function chunkSizeOf(options: StreamOptions): number {
  const size = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  return Math.max(1, Math.floor(size));
}
