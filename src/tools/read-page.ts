import { EditgateError } from '../core/errors.js';
import type { Fingerprint } from '../workspace/fingerprint.js';
import type { ResolvedPath } from '../workspace/guard.js';
import type { ReadDetails } from './details.js';
import { cappedLine, numberedLine } from './messages.js';
import { success, type ToolSuccess } from './result.js';
import type { ToolContext } from './tool.js';

/**
 * read_file's answer around the lines themselves, the same whether the file is held in memory
 * (read-file.ts) or read by streaming (streaming.ts): lines numbered `cat -n` style within the character
 * budget, what the read covered (recorded in the ledger, which decides whether the file may be edited), and the
 * footer saying where the page lies in the file.
 */
export class ReadPage {
  private readonly lines: string[] = [];
  private chars = 0;
  /** The last line shown; first - 1 while none is. */
  private last: number;

  /** Refuses an offset past the end; an empty file has no page (answer it with emptyFileRead). */
  constructor(
    private readonly context: ToolContext,
    private readonly resolved: ResolvedPath,
    private readonly fingerprint: Fingerprint,
    readonly first: number,
    private readonly total: number,
    /** The encoding the read was told to use (remembered for later edits); undefined: detected. */
    private readonly encoding?: string,
  ) {
    if (first > total) {
      throw new EditgateError(
        'INVALID_INPUT',
        `offset ${first} is past the end of ${resolved.relative}, which has ${total} lines. Use an offset from 1 to ${total}.`,
        { path: resolved.relative, lineCount: total },
      );
    }
    this.last = first - 1;
  }

  /** Adds the next line; false, and nothing added, when it would pass the character budget. */
  add(lineNumber: number, text: string): boolean {
    const line = numberedLine(lineNumber, cappedLine(text));
    // Always show at least one line, however long, so paging can never get stuck.
    if (this.lines.length > 0 && this.chars + line.length + 1 > this.context.maxReadChars) return false;
    this.lines.push(line);
    this.chars += line.length + 1;
    this.last = lineNumber;
    return true;
  }

  /**
   * Records the read and returns the answer. `note(complete)` ends the footer of a page that is not the whole
   * file (complete: this read and earlier ones together covered every line); `details` are added to the
   * page's own.
   */
  finish(
    note: (complete: boolean) => string,
    finalNewline: boolean,
    details: Pick<ReadDetails, 'encoding' | 'streamed' | 'size'>,
  ): ToolSuccess<ReadDetails> {
    const { context, resolved, fingerprint, first, last, total, encoding } = this;
    const complete = context.workspace.ledger.recordRead(
      resolved.absolute,
      fingerprint,
      { first, last, lineCount: total },
      { display: resolved.relative, encoding },
    );

    let footer = '';
    if (first > 1 || last < total) {
      const next = last < total ? ` Next: read_file with offset=${last + 1}.` : '';
      footer = `\n(Showing lines ${first}-${last} of ${total}.${next}${note(complete)})`;
    }
    if (!finalNewline && last === total) footer += '\n(The file does not end with a newline.)';
    return success(this.lines.join('\n') + footer, {
      path: resolved.relative,
      lines: total,
      firstLine: first,
      lastLine: last,
      complete,
      ...details,
    });
  }
}

/** read_file of an empty file: recorded as read in full. */
export function emptyFileRead(
  context: ToolContext,
  resolved: ResolvedPath,
  fingerprint: Fingerprint,
  encoding?: string,
): ToolSuccess<ReadDetails> {
  context.workspace.ledger.recordRead(
    resolved.absolute,
    fingerprint,
    { first: 1, last: 0, lineCount: 0 },
    { display: resolved.relative, encoding },
  );
  return success(`(${resolved.relative} is empty: 0 lines.)`, {
    path: resolved.relative,
    lines: 0,
    complete: true,
  });
}
