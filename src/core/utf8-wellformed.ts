/**
 * The byte-level UTF-8 check both the in-memory decoder (text.ts) and the streaming check
 * (workspace/stream/utf8-check.ts) use to say where a file stops being UTF-8, so both name the same byte.
 * Only called on the error path, once the native validator has said the bytes are invalid.
 */

/**
 * Offset of the first byte of the first ill-formed sequence at or after `from`, or -1 when the bytes from
 * there on are all well-formed. Well-formed as in the Unicode standard, table 3-7: no overlongs, no
 * surrogates, nothing above U+10FFFF, no truncated sequence at the end.
 */
export function firstIllFormedUtf8(bytes: Uint8Array, from = 0): number {
  const n = bytes.length;
  let i = from;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min = 0x80;
    let max = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b === 0xe0) {
      need = 2;
      min = 0xa0;
    } else if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) need = 2;
    else if (b === 0xed) {
      need = 2;
      max = 0x9f;
    } else if (b === 0xf0) {
      need = 3;
      min = 0x90;
    } else if (b >= 0xf1 && b <= 0xf3) need = 3;
    else if (b === 0xf4) {
      need = 3;
      max = 0x8f;
    } else return i;
    const b1 = bytes[i + 1];
    if (b1 === undefined || b1 < min || b1 > max) return i;
    for (let k = 2; k <= need; k++) {
      const bk = bytes[i + k];
      if (bk === undefined || bk < 0x80 || bk > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}
