/**
 * A QR code of a link, for the terminal: two modules a character (upper and lower half blocks), so a code
 * for a ~110-character link is about 35 columns by 18 lines. The code itself is uqr's (a port of Nayuki's
 * QR generator, no dependencies); the drawing is ours so that the colours are fixed: dark modules on a light
 * quiet zone whatever the terminal's theme is (`color`), or, without colour, the light modules drawn as
 * blocks on a dark background, which phone cameras read as well (they try both polarities).
 */
import { encode } from 'uqr';

/** The quiet zone around the code, in modules (the standard asks for 4; phones read 2 well). */
const BORDER = 2;

/** The lines of the code. `color`: black on white with ANSI colours (a terminal that shows colours). */
export function qrCodeLines(text: string, options: { color?: boolean } = {}): string[] {
  const { data } = encode(text, { ecc: 'L', border: BORDER });
  const size = data.length;
  const dark = (row: number, column: number) => row < size && data[row]![column] === true;
  const lines: string[] = [];
  for (let row = 0; row < size; row += 2) {
    let line = '';
    for (let column = 0; column < size; column++) {
      const top = dark(row, column);
      const bottom = dark(row + 1, column);
      if (options.color) {
        // Foreground black draws the dark half; the background is white.
        line += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' ';
      } else {
        // No colours: the light modules are drawn (the terminal's background is taken to be dark).
        const lightTop = !top;
        const lightBottom = row + 1 < size ? !bottom : false;
        line += lightTop && lightBottom ? '█' : lightTop ? '▀' : lightBottom ? '▄' : ' ';
      }
    }
    lines.push(options.color ? `\x1b[30;47m${line}\x1b[0m` : line);
  }
  return lines;
}
