import type { LineTable } from './line-table.js';

/*
 * Give every line an integer id, equal exactly when the lines are equal (terminator included). This is the
 * per-line cost every diff pays, so it avoids a string per line: the region is encoded to UTF-8 once
 * (natively), each line is hashed four bytes at a time and confirmed byte for byte in an open-addressing
 * table. That is several times faster than a Map of sliced strings and leaves nothing for the garbage
 * collector. Text with lone surrogates (which UTF-8 cannot tell apart) and tiny regions take the Map path.
 */

/** Ids of lines `[fromA, toA)` of one text and `[fromB, toB)` of the other. */
export interface InternedLines {
  a: Int32Array;
  b: Int32Array;
  /** Number of distinct lines; ids are `0 .. count - 1`. */
  count: number;
}

const SMALL = 64;

interface Side {
  bytes: Uint8Array;
  view: DataView;
  /** Byte offset of each line in `bytes`, one more entry than lines. */
  starts: Int32Array;
}

export function internLines(
  a: LineTable,
  fromA: number,
  toA: number,
  b: LineTable,
  fromB: number,
  toB: number,
): InternedLines {
  // A few lines: setting up the byte path costs more than it saves.
  if (toA - fromA + (toB - fromB) < SMALL) return internWithMap(a, fromA, toA, b, fromB, toB);
  const sideA = encodeSide(a, fromA, toA);
  const sideB = sideA && encodeSide(b, fromB, toB);
  if (!sideA || !sideB) return internWithMap(a, fromA, toA, b, fromB, toB);

  const total = toA - fromA + (toB - fromB);
  let capacity = 16;
  while (capacity < total * 2) capacity *= 2;
  const mask = capacity - 1;
  const slots = new Int32Array(capacity).fill(-1);
  // Per id: its hash and the line that first had it (side 0 = a, 1 = b).
  const hashes = new Int32Array(total);
  const firstSide = new Uint8Array(total);
  const firstLine = new Int32Array(total);
  const sides = [sideA, sideB];
  let count = 0;

  const idOf = (side: Side, sideIndex: number, line: number): number => {
    const { bytes, view, starts } = side;
    const start = starts[line]!;
    const end = starts[line + 1]!;
    let hash = end - start;
    let i = start;
    for (; i + 4 <= end; i += 4) hash = Math.imul(hash ^ view.getInt32(i, true), 0x9e3779b1) ^ (hash >>> 15);
    for (; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
    hash ^= hash >>> 16;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const id = slots[slot]!;
      if (id === -1) {
        slots[slot] = count;
        hashes[count] = hash;
        firstSide[count] = sideIndex;
        firstLine[count] = line;
        return count++;
      }
      if (hashes[id] === hash && sameBytes(sides[firstSide[id]!]!, firstLine[id]!, side, start, end))
        return id;
    }
  };
  // Both sides in step: a line and its likely partner are looked at close together, while their bytes and
  // table slot are still in cache.
  const linesA = toA - fromA;
  const linesB = toB - fromB;
  const idsA = new Int32Array(linesA);
  const idsB = new Int32Array(linesB);
  for (let line = 0; line < Math.max(linesA, linesB); line++) {
    if (line < linesA) idsA[line] = idOf(sideA, 0, line);
    if (line < linesB) idsB[line] = idOf(sideB, 1, line);
  }
  return { a: idsA, b: idsB, count };
}

function sameBytes(first: Side, line: number, side: Side, start: number, end: number): boolean {
  const firstStart = first.starts[line]!;
  const length = end - start;
  if (first.starts[line + 1]! - firstStart !== length) return false;
  const x = first.view;
  const y = side.view;
  let i = 0;
  for (; i + 4 <= length; i += 4) if (x.getInt32(firstStart + i) !== y.getInt32(start + i)) return false;
  for (; i < length; i++) if (first.bytes[firstStart + i] !== side.bytes[start + i]) return false;
  return true;
}

const encoder = new TextEncoder();
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// String.prototype.isWellFormed (ES2024, Node 20) is native and ~8x faster than the regex on non-ASCII text.
const isWellFormed = (text: string): boolean => {
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed;
  return native ? native.call(text) : !LONE_SURROGATE.test(text);
};

/** UTF-8 bytes and byte line starts of lines `[from, to)`, or undefined for text UTF-8 cannot represent. */
function encodeSide(table: LineTable, from: number, to: number): Side | undefined {
  const charStart = table.starts[from]!;
  const region = table.text.slice(charStart, table.starts[to]);
  if (!isWellFormed(region)) return undefined;
  let bytes = new Uint8Array(region.length);
  let { read, written } = encoder.encodeInto(region, bytes);
  const ascii = read === region.length && written === region.length;
  if (read !== region.length) {
    bytes = new Uint8Array(region.length * 3);
    ({ read, written } = encoder.encodeInto(region, bytes));
  }
  const lines = to - from;
  const starts = new Int32Array(lines + 1);
  if (ascii) {
    for (let i = 0; i <= lines; i++) starts[i] = table.starts[from + i]! - charStart;
  } else {
    // The same line ends, found in the bytes: UTF-8 never uses 0x0A or 0x0D inside a multi-byte character.
    let lf = bytes.indexOf(10);
    let cr = bytes.indexOf(13);
    for (let line = 1; line < lines; line++) {
      let next: number;
      if (cr === -1 || (lf !== -1 && lf < cr)) {
        next = lf + 1;
        lf = bytes.indexOf(10, next);
      } else {
        if (lf === cr + 1) {
          next = lf + 1;
          lf = bytes.indexOf(10, next);
        } else next = cr + 1;
        cr = bytes.indexOf(13, next);
      }
      starts[line] = next;
    }
    starts[lines] = written;
  }
  return { bytes, view: new DataView(bytes.buffer, bytes.byteOffset, written), starts };
}

function internWithMap(
  a: LineTable,
  fromA: number,
  toA: number,
  b: LineTable,
  fromB: number,
  toB: number,
): InternedLines {
  const ids = new Map<string, number>();
  const assign = (table: LineTable, from: number, to: number): Int32Array => {
    const seq = new Int32Array(to - from);
    for (let i = from; i < to; i++) {
      const key = table.text.slice(table.starts[i], table.starts[i + 1]);
      let id = ids.get(key);
      if (id === undefined) {
        id = ids.size;
        ids.set(key, id);
      }
      seq[i - from] = id;
    }
    return seq;
  };
  const idsA = assign(a, fromA, toA);
  const idsB = assign(b, fromB, toB);
  return { a: idsA, b: idsB, count: ids.size };
}
