/**
 * The line index of an edited file, derived from the original's while the edit is written, instead of
 * counting the lines of gigabytes again: every checkpoint that lies strictly inside an unchanged stretch
 * moves by the bytes and lines the spans before it added or removed.
 *
 * Those counts must be exact, "\r" and "\n" meeting at a span's border included (a new text ending in "\r"
 * before a kept "\n" makes one "\r\n"). So adjacent spans form a group, and each group is counted in a
 * window with the byte before it and the byte after it, old side against new side; bytes outside the
 * windows are the same on both sides and cancel out.
 */

import type { LineIndex } from './line-index.js';
import type { EolCounts } from './line-scan.js';
import { TerminatorCounter } from './line-scan.js';

interface Group {
  old: TerminatorCounter;
  new: TerminatorCounter;
  oldBytes: number;
  newBytes: number;
}

export class IndexShifter {
  private lines: Float64Array;
  private offsets: Float64Array;
  private count = 0;
  private next = 1; // the next checkpoint of the original to place
  private lineDelta = 0;
  private byteDelta = 0;
  private readonly eolDelta: EolCounts = { lf: 0, crlf: 0, cr: 0 };
  private group: Group | null = null;
  private before = -1; // last byte of the latest gap: opens the next group's window

  constructor(private readonly original: LineIndex) {
    this.lines = new Float64Array(Math.max(4, original.checkpoints + 4));
    this.offsets = new Float64Array(this.lines.length);
    this.push(1, original.bodyStart);
  }

  /** Bytes of the current span's old content, in order. */
  old(bytes: Buffer): void {
    const group = this.open();
    group.old.feed(bytes);
    group.oldBytes += bytes.length;
  }

  /** Bytes of the current span's replacement, in order. */
  insert(bytes: Buffer): void {
    const group = this.open();
    group.new.feed(bytes);
    group.newBytes += bytes.length;
  }

  /** An unchanged stretch [start, end) of the original (not empty) comes next; first and last are its bytes. */
  gap(start: number, end: number, first: number, last: number): void {
    this.close(first);
    const { offsets, lines, checkpoints } = this.original;
    while (this.next < checkpoints && offsets[this.next]! < end) {
      const at = offsets[this.next]!;
      // At the very start of a stretch the byte before changed: that may no longer be a line start.
      if (at > start) this.push(lines[this.next]! + this.lineDelta, at + this.byteDelta);
      this.next++;
    }
    this.before = last;
  }

  /** The new content's index; `size` and `lastByte` are the new file's. */
  finish(size: number, lastByte: number): LineIndex {
    this.close(-1);
    const { eol, bodyStart } = this.original;
    const counts: EolCounts = {
      lf: eol.lf + this.eolDelta.lf,
      crlf: eol.crlf + this.eolDelta.crlf,
      cr: eol.cr + this.eolDelta.cr,
    };
    const terminators = counts.lf + counts.crlf + counts.cr;
    const empty = size <= bodyStart;
    const finalNewline = !empty && (lastByte === 10 || lastByte === 13);
    let checkpoints = this.count;
    while (checkpoints > 1 && this.offsets[checkpoints - 1]! >= size) checkpoints--;
    return {
      key: '',
      size,
      bom: this.original.bom,
      bodyStart,
      lineCount: empty ? 0 : terminators + (finalNewline ? 0 : 1),
      eol: counts,
      finalNewline,
      lines: this.lines.subarray(0, checkpoints),
      offsets: this.offsets.subarray(0, checkpoints),
      checkpoints,
    };
  }

  private open(): Group {
    if (this.group) return this.group;
    const group: Group = {
      old: new TerminatorCounter(),
      new: new TerminatorCounter(),
      oldBytes: 0,
      newBytes: 0,
    };
    if (this.before >= 0) {
      const byte = Buffer.of(this.before);
      group.old.feed(byte);
      group.new.feed(byte);
    }
    this.group = group;
    return group;
  }

  private close(after: number): void {
    const group = this.group;
    if (!group) return;
    this.group = null;
    if (after >= 0) {
      const byte = Buffer.of(after);
      group.old.feed(byte);
      group.new.feed(byte);
    }
    group.old.end();
    group.new.end();
    this.eolDelta.lf += group.new.lf - group.old.lf;
    this.eolDelta.crlf += group.new.crlf - group.old.crlf;
    this.eolDelta.cr += group.new.cr - group.old.cr;
    this.lineDelta += group.new.count - group.old.count;
    this.byteDelta += group.newBytes - group.oldBytes;
  }

  private push(line: number, offset: number): void {
    if (this.count === this.lines.length) {
      const lines = new Float64Array(this.count * 2);
      const offsets = new Float64Array(this.count * 2);
      lines.set(this.lines);
      offsets.set(this.offsets);
      this.lines = lines;
      this.offsets = offsets;
    }
    this.lines[this.count] = line;
    this.offsets[this.count] = offset;
    this.count++;
  }
}
