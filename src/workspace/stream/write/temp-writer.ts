/**
 * The temp file a streamed edit is written into, in the target's folder so the final rename is atomic.
 * Writes are sequential. Every 64 MiB a data sync is started in the background, so the disk writes while we
 * keep copying and the final fsync has little left to do (a single fsync at the end of a 2 GiB copy would
 * stall for seconds).
 */
import { constants } from 'node:fs';
import { copyFile, type FileHandle, open, unlink } from 'node:fs/promises';

const WRITEBACK_EVERY = 64 << 20;
const BUFFER_BYTES = 256 << 10;

/** Whose file the temp file replaces: copied onto it before anything is written. */
export interface FileOwner {
  uid: number;
  gid: number;
  /** Permission bits. */
  mode: number;
}

export class TempWriter {
  /** Bytes written so far (the offset of the next write), buffered ones included. */
  position = 0;
  /** Small writes gather here: one syscall per buffer, not per replacement. */
  private readonly buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private buffered = 0;
  private flushedTo = 0;
  /** Started as a copy: bytes past the last write are the copy's and are cut off at the end. */
  private truncate = false;
  private syncedAt = 0;
  private syncing: Promise<void> | null = null;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  /** Creates `path` exclusively, private until the target's owner and permission bits are copied. */
  static async create(path: string, owner: FileOwner | null): Promise<TempWriter> {
    const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    const writer = new TempWriter(path, handle);
    try {
      await writer.own(owner);
    } catch (error) {
      await writer.abort();
      throw error;
    }
    return writer;
  }

  private async own(owner: FileOwner | null): Promise<void> {
    if (!owner) {
      // A kernel copy took the source's mode; a temp file stays private until it has the target's.
      await this.handle.chmod(0o600);
      return;
    }
    if (process.getuid?.() === 0) {
      // As commitBytes does: best effort, some filesystems refuse chown even to root.
      await this.handle.chown(owner.uid, owner.gid).catch(() => {});
    }
    // After chown, which may clear setuid/setgid bits.
    await this.handle.chmod(owner.mode);
  }

  /**
   * A temp file that starts as a copy of `source` made by the filesystem, positioned at `from`: the caller
   * writes from there on, and finish() cuts off what is left beyond. 'reflink' shares the source's extents
   * (btrfs, xfs, APFS...: instant, and nothing to fsync); 'copy' also accepts a kernel copy
   * (copy_file_range), which measured no faster than streaming on ext4 once the fsync is counted, since its
   * flush cannot overlap the copy. Null when the filesystem cannot (the caller writes everything then).
   */
  static async copyOf(
    source: string,
    path: string,
    owner: FileOwner | null,
    from: number,
    mode: 'reflink' | 'copy',
  ): Promise<TempWriter | null> {
    const flags = constants.COPYFILE_EXCL | (mode === 'reflink' ? constants.COPYFILE_FICLONE_FORCE : 0);
    try {
      await copyFile(source, path, flags);
    } catch {
      await unlink(path).catch(() => {});
      return null;
    }
    let handle: FileHandle;
    try {
      handle = await open(path, constants.O_WRONLY);
    } catch {
      await unlink(path).catch(() => {});
      return null;
    }
    const writer = new TempWriter(path, handle);
    writer.position = writer.flushedTo = from;
    writer.truncate = true;
    try {
      await writer.own(owner);
    } catch (error) {
      await writer.abort();
      throw error;
    }
    // Start the copied bytes on their way to disk while the rest is written.
    writer.syncing = handle.datasync().finally(() => {
      writer.syncing = null;
    });
    writer.syncing.catch(() => {});
    return writer;
  }

  /** Writes (or buffers) bytes; they may be reused by the caller as soon as this returns. */
  async write(bytes: Uint8Array): Promise<void> {
    if (bytes.length >= BUFFER_BYTES / 2) {
      await this.flush();
      await this.put(bytes);
    } else {
      if (this.buffered + bytes.length > BUFFER_BYTES) await this.flush();
      this.buffer.set(bytes, this.buffered);
      this.buffered += bytes.length;
    }
    this.position += bytes.length;
  }

  private async flush(): Promise<void> {
    if (this.buffered === 0) return;
    const length = this.buffered;
    this.buffered = 0;
    await this.put(this.buffer.subarray(0, length));
  }

  private async put(bytes: Uint8Array): Promise<void> {
    let done = 0;
    while (done < bytes.length) {
      const { bytesWritten } = await this.handle.write(bytes, done, bytes.length - done, this.flushedTo);
      done += bytesWritten;
      this.flushedTo += bytesWritten;
    }
    this.writeback();
  }

  /** fsync and close: the content is on disk before anyone renames it into place. */
  async finish(): Promise<void> {
    await this.flush();
    if (this.truncate) await this.handle.truncate(this.position);
    if (this.syncing) await this.syncing;
    await this.handle.sync();
    this.closed = true;
    await this.handle.close();
  }

  /** Close and remove; never throws (used on every failure path). */
  async abort(): Promise<void> {
    if (this.syncing) await this.syncing.catch(() => {});
    if (!this.closed) {
      this.closed = true;
      await this.handle.close().catch(() => {});
    }
    await unlink(this.path).catch(() => {});
  }

  private writeback(): void {
    if (this.syncing || this.flushedTo - this.syncedAt < WRITEBACK_EVERY) return;
    this.syncedAt = this.flushedTo;
    this.syncing = this.handle.datasync().finally(() => {
      this.syncing = null;
    });
    // A failure here resurfaces in finish()'s own fsync; an unhandled rejection must not crash the process.
    this.syncing.catch(() => {});
  }
}
