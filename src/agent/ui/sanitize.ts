import { stripAnsi } from '../../terminal/colors.js';

/**
 * Text from a model or a command is never written to the terminal as it is: an escape sequence in it could
 * move the cursor, rewrite the scrollback, set the window title or hide text. Escape sequences are removed
 * (a command's colours are lost, nothing else), a carriage return keeps what a terminal would show (the
 * text after it: progress bars), and the remaining control characters are shown as symbols by the cell
 * renderer (terminal/cells.ts) when the text is laid out.
 */
export function sanitizeOutput(text: string): string {
  return stripAnsi(text)
    .split('\n')
    .map((line) => {
      const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
      const cut = trimmed.lastIndexOf('\r');
      return cut >= 0 ? trimmed.slice(cut + 1) : trimmed;
    })
    .join('\n');
}
