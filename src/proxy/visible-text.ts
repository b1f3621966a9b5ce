/**
 * Text from a model, a server or a file, made safe to put in front of a person: an elicitation message that
 * a client shows in its terminal UI, a card's arguments, a line on the proxy's own terminal. Which
 * characters are marked is core/invisible.ts's rule, the one every screen of editgate uses (controls,
 * bidirectional marks, zero-width and tag characters, soft hyphen, Hangul fillers, variation selectors, ...);
 * each becomes its visible stand-in (␛ for ESC, <U+XXXX> for the rest). Newlines and tabs are layout and
 * stay, unless `oneLine` asks for a single line.
 */
import { markInvisible, markOf } from '../core/invisible.js';

export function visibleText(text: string, options: { oneLine?: boolean } = {}): string {
  const marked = markInvisible(text);
  return options.oneLine ? marked.replace(/[\t\n]/g, (layout) => markOf(layout.charCodeAt(0))) : marked;
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
