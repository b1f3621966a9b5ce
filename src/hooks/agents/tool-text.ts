/**
 * A file's bytes as an agent's own edit tool reads them, for the adapters that work out what the tool will
 * write: the text after a UTF-8 byte-order mark (and whether there was one), and whether it has CRLF line
 * ends. Bytes that are not UTF-8 are refused: these tools read them as UTF-8 and would write other bytes
 * back, so editgate could not show the change that is written.
 */
import { EditgateError } from '../../core/errors.js';

export interface ToolText {
  /** The text, byte-order mark left out. */
  text: string;
  /** The file started with a UTF-8 byte-order mark. */
  bom: boolean;
  /** The text has at least one CRLF (the tools below all decide on "any CRLF"). */
  crlf: boolean;
}

const BOM = '\uFEFF';

/** A refusal of a call whose result editgate cannot be sure of, or that the tool itself would refuse. */
export function toolRefusal(message: string, path: string): EditgateError {
  return new EditgateError('INVALID_INPUT', message, { path });
}

export function readToolText(current: Buffer, path: string, tool: string): ToolText {
  const decoded = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(current);
  if (!Buffer.from(decoded, 'utf8').equals(current) || decoded.includes('\0'))
    throw toolRefusal(
      `${path} is not UTF-8 text; ${tool} would read it as UTF-8 and write other bytes back, so editgate refuses the edit. Nothing was written.`,
      path,
    );
  const bom = decoded.startsWith(BOM);
  const text = bom ? decoded.slice(1) : decoded;
  return { text, bom, crlf: text.includes('\r\n') };
}

/** The text as bytes, with the byte-order mark put back when asked. */
export function toolBytes(text: string, bom: boolean): Buffer {
  return Buffer.from(bom ? BOM + text : text, 'utf8');
}

/** Non-overlapping occurrences of `find` in `text`, left to right (how String.split and indexOf loops count). */
export function countOccurrences(text: string, find: string): number {
  if (find === '') return 0;
  let count = 0;
  for (let at = text.indexOf(find); at !== -1; at = text.indexOf(find, at + find.length)) count++;
  return count;
}
