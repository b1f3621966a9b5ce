/**
 * Text from a model, a server or a file, made safe to put in front of a person: an elicitation message that
 * a client shows in its terminal UI, a card's arguments, a line on the proxy's own terminal. Control
 * characters become visible symbols (an ESC could otherwise move the cursor or recolour the screen, a lone
 * CR overwrite what a line seems to say), and invisible characters that change how text reads
 * (bidirectional overrides and isolates, zero-width spaces, line separators) are spelled out as <U+XXXX>.
 * Newlines and tabs are layout and stay, unless `oneLine` asks for a single line.
 */

const HIDDEN =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const HIDDEN_OR_BREAK = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

function symbolFor(character: string): string {
  const code = character.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code); // ␀ … ␟ (␛ for ESC, ␍ for CR, ␊ for LF)
  if (code === 0x7f) return '\u2421'; // ␡
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

export function visibleText(text: string, options: { oneLine?: boolean } = {}): string {
  return text.replace(options.oneLine ? HIDDEN_OR_BREAK : HIDDEN, symbolFor);
}

export interface CappedText {
  text: string;
  /** Lines left out at the end (0: the whole text is there). */
  omittedLines: number;
}

/**
 * The first lines of `text`, at most `maxLines` of them and `maxChars` characters in all, cut at a line
 * boundary (a single over-long line is cut inside, so something is always shown).
 */
export function capLines(text: string, maxLines: number, maxChars: number): CappedText {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const kept: string[] = [];
  let chars = 0;
  for (const line of lines) {
    if (kept.length >= maxLines) break;
    if (chars + line.length + 1 > maxChars) {
      if (kept.length === 0) kept.push(`${line.slice(0, maxChars)}…`);
      break;
    }
    kept.push(line);
    chars += line.length + 1;
  }
  return { text: kept.join('\n'), omittedLines: lines.length - kept.length };
}
