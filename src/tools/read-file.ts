import { z } from 'zod';
import { formatBytes } from '../core/format-bytes.js';
import { splitLines } from '../core/lines.js';
import { encodingField, filePathField } from './fields.js';
import { emptyFileRead, ReadPage } from './read-page.js';
import { readHugeFile } from './streaming.js';
import { type CallInput, defineTool, fileCall } from './tool.js';

const schema = z.strictObject({
  file_path: filePathField('the path of the file to read'),
  offset: z
    .number()
    .int()
    .min(1, 'offset is a 1-based line number')
    .optional()
    .describe('The 1-based line number to start reading at. Omit to start at the first line.'),
  limit: z
    .number()
    .int()
    .min(1, 'limit must be at least 1')
    .optional()
    .describe('How many lines to read at most. Omit for the default.'),
  encoding: encodingField,
});

export const readFileTool = defineTool({
  name: 'read_file',
  title: 'Read file',
  description: ({ readLimit, streamThreshold }) =>
    [
      'Read a text file of the workspace. Returns its lines numbered like `cat -n`: the line number, a tab, then the line.',
      'The numbers are NOT part of the file: never copy them (or the tab after them) into old_string. edit_lines counts lines exactly as these numbers do.',
      `Reads at most ${readLimit} lines by default; use offset (1-based first line) and limit to page through longer files. The result says when a read was partial.`,
      "Read the lines you will change before editing them (an edit may only touch lines read in the file's current version), and the whole file (in one read or in pages) before overwriting it with write_file; read again if it changed.",
      `Huge files (${formatBytes(streamThreshold, 'compact')} or more) are the exception: reading the part you will change is enough to edit them with edit_file or edit_lines.`,
      'Binary files are described, not shown. Pass encoding (e.g. "latin1") only for a file that is not UTF-8/UTF-16.',
    ].join('\n'),
  schema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  describe: (input) => fileCall(input, 'Read', 'Read file', linesWanted(input)),
  async run(input, context) {
    const resolved = await context.gate.resolveForRead('read_file', input.file_path, context.signal);
    // An encoding given once is remembered for the file: later reads and edits need not repeat it.
    const encoding = input.encoding ?? context.workspace.ledger.get(resolved.absolute)?.encoding;
    const opened = await context.workspace.open(resolved, { encoding });
    if (opened.kind === 'stream') {
      try {
        return await readHugeFile(context, resolved, opened.file, input);
      } finally {
        await opened.file.close();
      }
    }
    const { snapshot } = opened;
    const lines = splitLines(snapshot.text);
    const total = lines.length;
    const fingerprint = snapshot.fingerprint!;
    if (total === 0) return emptyFileRead(context, resolved, fingerprint, encoding);
    const page = new ReadPage(context, resolved, fingerprint, input.offset ?? 1, total, encoding);
    const limit = input.limit ?? context.readLimit;
    const wanted = Math.min(total, page.first + limit - 1);
    for (let n = page.first; n <= wanted; n++) {
      if (!page.add(n, lines[n - 1]!.text)) break;
    }
    return page.finish(
      (complete) =>
        complete
          ? ' Together with your earlier reads you have now seen every line, so the file can be edited.'
          : ' You can edit the lines you have read; to overwrite the whole file with write_file, read the rest too.',
      snapshot.codec.finalNewline,
      { encoding: snapshot.codec.encoding },
    );
  },
});

/** The lines a read asks for, as a title says them: " (lines 10-29)", " (from line 10)"; '' for the default. */
function linesWanted(input: CallInput): string {
  const whole = (value: unknown) =>
    Number.isSafeInteger(value) && (value as number) >= 1 ? (value as number) : undefined;
  const offset = whole(input.offset);
  const limit = whole(input.limit);
  if (limit !== undefined) return ` (lines ${offset ?? 1}-${(offset ?? 1) + limit - 1})`;
  return offset !== undefined ? ` (from line ${offset})` : '';
}
