/**
 * Text from a model or a file, made safe to put in HTML: it is only ever text, never markup (`<`, `&`
 * and quotes are escaped, so `<script>` or `</textarea>` in a file are shown as written), and the
 * characters that could mislead a reader are shown as visible symbols, as the terminal shows them
 * (control characters such as ESC, bidirectional overrides, zero-width spaces: see core/visible-form).
 */
import { visibleForm } from '../core/visible-form.js';

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
  let out = '';
  for (const char of text) {
    const visible = char === '\t' ? undefined : visibleForm(char);
    if (visible === undefined) out += ENTITY[char] ?? char;
    else {
      const code = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      out += `<span class="ctl" title="${code}">${escapeHtml(visible)}</span>`;
    }
  }
  return out;
}
