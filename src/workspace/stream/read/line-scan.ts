/**
 * Line terminators in raw bytes, as lines.ts counts them in text ("\r\n", "\n", lone "\r"), fed one chunk
 * at a time. A "\r" at the end of a chunk stays pending until the next byte says whether it was half of a
 * "\r\n". Counting uses Buffer.indexOf (native memchr): many times faster than a byte loop in JS.
 */

export interface EolCounts {
  lf: number;
  crlf: number;
  cr: number;
}

export class TerminatorCounter {
  lf = 0;
  crlf = 0;
  cr = 0;
  /** The last byte fed was a "\r" whose partner is not known yet. */
  pendingCr = false;

  /** Feed bytes[from, to), the bytes right after everything fed before. */
  feed(bytes: Buffer, from = 0, to = bytes.length): void {
    if (from >= to) return;
    if (this.pendingCr) {
      this.pendingCr = false;
      if (bytes[from] === 10) {
        this.crlf++;
        from++;
      } else this.cr++;
    }
    if (from >= to) return;
    const view = from === 0 && to === bytes.length ? bytes : bytes.subarray(from, to);
    const newlines = countByte(view, 10);
    let pairs = 0;
    const last = view.length - 1;
    for (let q = view.indexOf(13); q !== -1; q = view.indexOf(13, q + 1)) {
      if (q === last) this.pendingCr = true;
      else if (view[q + 1] === 10) pairs++;
      else this.cr++;
    }
    this.lf += newlines - pairs;
    this.crlf += pairs;
  }

  /** No more bytes: a pending "\r" was a lone one. */
  end(): void {
    if (this.pendingCr) {
      this.pendingCr = false;
      this.cr++;
    }
  }

  /**
   * Terminators before the current point, a pending "\r" included: right for any point that is a line start
   * or inside a line, which is every point editgate asks about (a match never starts inside a "\r\n").
   */
  get count(): number {
    return this.lf + this.crlf + this.cr + (this.pendingCr ? 1 : 0);
  }

  get counts(): EolCounts {
    return { lf: this.lf, crlf: this.crlf, cr: this.cr };
  }
}

export function countByte(bytes: Uint8Array, byte: number): number {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let count = 0;
  for (let q = buffer.indexOf(byte); q !== -1; q = buffer.indexOf(byte, q + 1)) count++;
  return count;
}

/** Terminators in a complete piece of bytes (a trailing "\r" counts as lone). */
export function countTerminators(bytes: Buffer): number {
  const counter = new TerminatorCounter();
  counter.feed(bytes);
  counter.end();
  return counter.lf + counter.crlf + counter.cr;
}

/**
 * Offset just past the first terminator that ends at or after `from` within bytes[0, to), or -1 when none
 * ends there, or when the only candidate is a "\r" on the last byte (whether a "\n" follows is not known).
 */
export function firstLineStartFrom(bytes: Buffer, from: number, to: number): number {
  const start = Math.max(0, from - 1);
  if (start >= to) return -1;
  const view = bytes.subarray(start, to);
  const lf = view.indexOf(10);
  const cr = view.indexOf(13);
  let q: number;
  if (cr === -1 || (lf !== -1 && lf < cr)) q = lf;
  else q = cr;
  if (q === -1) return -1;
  let end: number;
  if (view[q] === 10) end = q + 1;
  else if (q + 1 < view.length) end = view[q + 1] === 10 ? q + 2 : q + 1;
  else return -1;
  end += start;
  // A "\n" right at from-1 ends a terminator before `from` unless it is the second half of a "\r\n" ending
  // exactly at `from`; either way, the line start must not be before `from`.
  if (end < from) return firstLineStartFrom(bytes, end + 1, to);
  return end;
}
