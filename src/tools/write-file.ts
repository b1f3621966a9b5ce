import { z } from 'zod';
import { adoptLineEnding } from '../core/lines.js';
import { changeDetails, changeMessage } from './messages.js';
import { success } from './result.js';
import { refuseHuge } from './streaming.js';
import { defineTool } from './tool.js';

const schema = z.strictObject({
  file_path: z.string().min(1, 'give the path of the file to write'),
  content: z.string({ error: 'content must be the whole new file as a string' }),
  encoding: z.string().min(1).optional(),
});

export const writeFileTool = defineTool({
  name: 'write_file',
  title: 'Write file',
  description: [
    'Create a new file, or replace the whole content of an existing one. Missing parent folders are created.',
    'To overwrite an existing file you must have read it in full with read_file, and it must not have changed since.',
    'Prefer edit_file or multi_edit for changes to an existing file: they send only the changed text and cannot lose the rest.',
    "An existing file keeps its encoding, byte-order mark and line endings (\\n in content becomes the file's own line ending).",
    'If content is identical to the file, nothing is written.',
    'Huge files (32 MiB or more by default) cannot be rewritten whole: this tool refuses them (TOO_LARGE); change them with edit_file or edit_lines.',
  ].join('\n'),
  schema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(input, context) {
    const outcome = await context.change({
      tool: 'write_file',
      path: input.file_path,
      input,
      requireRead: true,
      encoding: input.encoding,
      stream: refuseHuge(context, 'write_file'),
      compute: (base) => ({
        after: base.exists ? adoptLineEnding(input.content, base.codec.eol) : input.content,
      }),
    });
    return success(changeMessage(outcome), changeDetails(outcome));
  },
});
