/**
 * Which characters a person cannot see, or cannot trust a screen to show: the one rule for every place a
 * person reads text that came from a file or a model (the terminal's diff view and prompt, the MCP approval
 * prompt and preview text, the web review page). Such a character is shown by a visible stand-in instead.
 *
 * - Controls: C0 (an ESC can move the cursor, recolour or clear the screen), DEL and C1. Tab and newline are
 *   the caller's to lay out; every other control is marked.
 * - Invisible formatting that changes how text reads or what it means (Trojan Source, CVE-2021-42574, and
 *   "ASCII smuggling"): bidirectional marks, embeddings, overrides and isolates (LRM, RLM, ALM, U+202A-E,
 *   U+2066-9), zero-width and joining characters, line and paragraph separators, the BOM used inside text,
 *   soft hyphen, invisible operators (U+2061-4), Hangul fillers, tag characters (U+E0000-7F, which can spell
 *   out hidden ASCII), variation selectors, the Mongolian separators, interlinear annotation marks.
 *
 * Kept as they are where they are what makes an emoji: a zero width joiner between two pictographs
 * (👩‍💻), and the text/emoji presentation selectors U+FE0E/U+FE0F after a pictograph or a keycap base
 * (❤️, 1️⃣). A zero width non-joiner between two letters of a script that needs it (Persian, Indic) is
 * kept too; between ASCII, or next to anything else, it is marked.
 */

/** Invisible code points marked wherever they appear (ranges, inclusive). */
const ALWAYS: readonly (readonly [number, number])[] = [
  [0x00ad, 0x00ad], // soft hyphen
  [0x034f, 0x034f], // combining grapheme joiner
  [0x061c, 0x061c], // Arabic letter mark (ALM)
  [0x115f, 0x1160], // Hangul choseong / jungseong fillers
  [0x17b4, 0x17b5], // Khmer inherent vowels (invisible)
  [0x180b, 0x180f], // Mongolian free variation selectors and vowel separator
  [0x200b, 0x200b], // zero width space
  [0x200e, 0x200f], // left-to-right and right-to-left marks
  [0x2028, 0x202e], // line and paragraph separators, bidi embeddings and overrides
  [0x2060, 0x206f], // word joiner, invisible operators, isolates, deprecated format characters
  [0x3164, 0x3164], // Hangul filler
  [0xfe00, 0xfe0d], // variation selectors 1-14
  [0xfeff, 0xfeff], // zero width no-break space (a BOM inside text)
  [0xffa0, 0xffa0], // halfwidth Hangul filler
  [0xfff9, 0xfffb], // interlinear annotation marks
  [0x1d173, 0x1d17a], // musical symbol format characters
  [0xe0000, 0xe007f], // tag characters
  [0xe0100, 0xe01ef], // variation selectors 17-256
];

const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const VS15 = 0xfe0e;
const VS16 = 0xfe0f;
const KEYCAP = 0x20e3;

const PICTOGRAPH = /^\p{Extended_Pictographic}$/u;
const LETTER = /^\p{L}$/u;
/** Anything that may need a look: not printable ASCII, tab or newline. */
const NOT_PLAIN = /[^\x20-\x7e\t\n]/;

function inAlways(code: number): boolean {
  if (code < 0xad) return false;
  for (const [from, to] of ALWAYS) {
    if (code < from) return false;
    if (code <= to) return true;
  }
  return false;
}

/** C0 controls other than tab and newline, DEL, and C1. */
export function isControlCode(code: number): boolean {
  return (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code < 0xa0);
}

function isPictograph(code: number | undefined): boolean {
  return code !== undefined && PICTOGRAPH.test(String.fromCodePoint(code));
}

function isNonAsciiLetter(code: number | undefined): boolean {
  return code !== undefined && code > 0x7f && LETTER.test(String.fromCodePoint(code));
}

/**
 * Whether `code` must be marked, given the code points before and after it (undefined at either end of
 * the text). Controls (but tab and newline) and invisible characters are; see the top of this file.
 */
export function mustMark(code: number, before?: number, after?: number): boolean {
  if (isControlCode(code)) return true;
  if (code === ZWJ) return !(isPictograph(before) && isPictograph(after));
  if (code === ZWNJ) return !(isNonAsciiLetter(before) && isNonAsciiLetter(after));
  if (code === VS15 || code === VS16) {
    const keycapBase =
      before !== undefined && /^[#*0-9]$/.test(String.fromCodePoint(before)) && after === KEYCAP;
    return !(isPictograph(before) || keycapBase);
  }
  return inAlways(code);
}

/** The visible stand-in: a control picture for C0 (␛ for ESC) and DEL (␡), `<U+XXXX>` for the rest. */
export function markOf(code: number): string {
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** True when `text` holds nothing that could need marking (printable ASCII, tabs and newlines): the fast path. */
export function isPlainText(text: string): boolean {
  return !NOT_PLAIN.test(text);
}

/**
 * `text` with every character that must be marked replaced by its stand-in (`markOf`). Tabs and newlines
 * are kept; so is a carriage return right before a newline when `keepCrlf` is set (a CRLF file's line
 * ends, which the caller shows its own way).
 */
export function markInvisible(text: string, options: { keepCrlf?: boolean } = {}): string {
  if (isPlainText(text)) return text;
  const codes = Array.from(text, (ch) => ch.codePointAt(0)!);
  let out = '';
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]!;
    const keep = options.keepCrlf === true && code === 0x0d && codes[i + 1] === 0x0a;
    out += !keep && mustMark(code, codes[i - 1], codes[i + 1]) ? markOf(code) : String.fromCodePoint(code);
  }
  return out;
}
