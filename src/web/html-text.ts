/**
 * Text from a model or a file, made safe to put in HTML: it is only ever text, never markup (`<`, `&`
 * and quotes are escaped, so `<script>` or `</textarea>` in a file are shown as written), and the
 * characters that could mislead a reader are shown as visible symbols, as the terminal shows them
 * (control characters such as ESC, bidirectional marks and overrides, zero-width spaces, tag characters: the
 * one rule of core/invisible.ts).
 */
import { markOf, mustMark } from '../core/invisible.js';

const PLAIN = /^[\x20-\x7e\t]*$/;
const SPECIAL = /[&<>"']/g;
const ENTITY: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

const escapeChar = (char: string) => ENTITY[char]!;

/** Escape for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(SPECIAL, escapeChar);
}

/** Text for display: escaped, with control and invisible characters as marked visible symbols. */
export function htmlText(text: string): string {
  if (PLAIN.test(text)) return text.replace(SPECIAL, escapeChar);
  const codes = Array.from(text, (char) => char.codePointAt(0)!);
  let out = '';
  codes.forEach((code, i) => {
    const char = String.fromCodePoint(code);
    // Text here is laid out one line at a time: a newline inside it is shown (␊), like any control.
    if (code !== 0x0a && (code === 0x09 || !mustMark(code, codes[i - 1], codes[i + 1])))
      out += ENTITY[char] ?? char;
    else {
      const title = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
      out += `<span class="ctl" title="${title}">${escapeHtml(markOf(code))}</span>`;
    }
  });
  return out;
}
