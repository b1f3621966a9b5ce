/**
 * Characters that must never reach a screen as themselves. A control character in a file (an ESC could
 * move a terminal's cursor or recolour it) and the invisible characters that change how code reads
 * (bidirectional overrides, zero-width spaces, line separators: "Trojan Source") are shown as visible
 * symbols instead, the same way by every front end (the terminal's cells, the web review page).
 */

const INVISIBLE = new Set([
  0x200b, 0x2028, 0x2029, 0x2060, 0xfeff, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068,
  0x2069,
]);

/** How a single grapheme is shown, or undefined when it is shown as itself. */
export function visibleForm(grapheme: string): string | undefined {
  if (grapheme.length > 2) return undefined;
  const code = grapheme.codePointAt(0)!;
  if (grapheme.length === 1 || code > 0xffff) {
    if (code < 0x20) return String.fromCharCode(0x2400 + code); // ␀ … ␟ (␛ for ESC, ␍ for CR)
    if (code === 0x7f) return '\u2421'; // ␡
    if (code >= 0x80 && code < 0xa0) return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
    if (INVISIBLE.has(code)) return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
  }
  return undefined;
}
