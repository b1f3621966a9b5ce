import { z } from 'zod';
import { EditgateError } from '../core/errors.js';
import { splitLines } from '../core/lines.js';
import { numberedLine } from './messages.js';
import { success } from './result.js';
import { readHugeFile } from './streaming.js';
import { defineTool } from './tool.js';

const schema = z.strictObject({
  file_path: z.string().min(1, 'give the path of the file to read'),
  offset: z.number().int().min(1, 'offset is a 1-based line number').optional(),
  limit: z.number().int().min(1, 'limit must be at least 1').optional(),
  encoding: z.string().min(1).optional(),
});

export const readFileTool = defineTool({
  name: 'read_file',
  title: 'Read file',
  description: [
    'Read a text file of the workspace. Returns its lines numbered like `cat -n`: the line number, a tab, then the line.',
    'The numbers are NOT part of the file: never copy them (or the tab after them) into old_string. edit_lines counts lines exactly as these numbers do.',
    'Reads at most 2000 lines by default; use offset (1-based first line) and limit to page through longer files. The result says when a read was partial.',
    'You must read a file in full (in one read or in pages that cover every line) before editing or overwriting it, and read it again if it changed.',
    'Huge files (32 MiB or more by default) are the exception: reading the part you will change is enough to edit them with edit_file or edit_lines.',
    'Binary files are described, not shown. Pass encoding (e.g. "latin1") only for a file that is not UTF-8/UTF-16.',
  ].join('\n'),
  schema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(input, context) {
    const resolved = await context.gate.resolveForRead('read_file', input.file_path);
    const huge = await readHugeFile(context, resolved, input);
    if (huge) return huge;
    const { snapshot } = await context.gate.readForTool('read_file', input.file_path, {
      encoding: input.encoding,
      resolved,
    });
    const lines = splitLines(snapshot.text);
    const total = lines.length;
    const fingerprint = snapshot.fingerprint!;
    const first = input.offset ?? 1;
    if (total === 0) {
      context.coverage.add(resolved.absolute, fingerprint.hash, 1, 0, 0);
      context.gate.ledger.recordRead(resolved.absolute, fingerprint, {
        full: true,
        display: resolved.relative,
      });
      return success(`(${resolved.relative} is empty: 0 lines.)`, {
        path: resolved.relative,
        lines: 0,
        complete: true,
      });
    }
    if (first > total) {
      throw new EditgateError(
        'INVALID_INPUT',
        `offset ${first} is past the end of ${resolved.relative}, which has ${total} lines. Use an offset from 1 to ${total}.`,
        { path: resolved.relative, lineCount: total },
      );
    }
    const limit = input.limit ?? context.readLimit;
    const wanted = Math.min(total, first + limit - 1);
    const out: string[] = [];
    let chars = 0;
    let last = first - 1;
    for (let n = first; n <= wanted; n++) {
      const line = numberedLine(n, lines[n - 1]!.text);
      // Always show at least one line, however long, so paging can never get stuck.
      if (out.length > 0 && chars + line.length + 1 > context.maxReadChars) break;
      out.push(line);
      chars += line.length + 1;
      last = n;
    }
    const complete = context.coverage.add(resolved.absolute, fingerprint.hash, first, last, total);
    context.gate.ledger.recordRead(resolved.absolute, fingerprint, {
      full: complete,
      display: resolved.relative,
    });

    let footer = '';
    if (first > 1 || last < total) {
      const next = last < total ? ` Next: read_file with offset=${last + 1}.` : '';
      const editable = complete
        ? ' Together with your earlier reads you have now seen every line, so the file can be edited.'
        : ' To edit this file you must first see every line (the rest of it in further reads).';
      footer = `\n(Showing lines ${first}-${last} of ${total}.${next}${editable})`;
    }
    if (!snapshot.codec.finalNewline && last === total) footer += '\n(The file does not end with a newline.)';
    return success(out.join('\n') + footer, {
      path: resolved.relative,
      lines: total,
      firstLine: first,
      lastLine: last,
      complete,
      encoding: snapshot.codec.encoding,
    });
  },
});
