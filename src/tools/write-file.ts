import { z } from 'zod';
import { formatBytes } from '../core/format-bytes.js';
import { adoptLineEnding } from '../core/lines.js';
import { checkNoNewPlaceholders } from '../core/placeholders.js';
import { encodingField, filePathField } from './fields.js';
import { changeDetails, changeMessage } from './messages.js';
import { success } from './result.js';
import { refuseHuge } from './streaming.js';
import { defineTool, editing, fileCall } from './tool.js';

const schema = z.strictObject({
  file_path: filePathField('the path of the file to write'),
  content: z
    .string({ error: 'content must be the whole new file as a string' })
    .describe('The whole new content of the file.'),
  encoding: encodingField,
});

export const writeFileTool = defineTool({
  name: 'write_file',
  title: 'Write file',
  description: ({ streamThreshold }) =>
    [
      'Create a new file, or replace the whole content of an existing one. Missing parent folders are created.',
      'To overwrite an existing file you must have read it in full with read_file, and it must not have changed since.',
      'Prefer edit_file or multi_edit for changes to an existing file: they send only the changed text and cannot lose the rest.',
      "An existing file keeps its encoding, byte-order mark and line endings (\\n in content becomes the file's own line ending).",
      'If content is identical to the file, nothing is written.',
      `Huge files (${formatBytes(streamThreshold, 'compact')} or more) cannot be rewritten whole: this tool refuses them (TOO_LARGE); change them with edit_file or edit_lines.`,
    ].join('\n'),
  schema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  describe: (input) => fileCall(input, 'Write', 'Write file'),
  async run(input, context) {
    const outcome = await context.change({
      tool: 'write_file',
      path: input.file_path,
      input,
      requireRead: true,
      prepare: editing({
        encoding: input.encoding,
        compute: (base) => {
          if (context.placeholders === 'refuse') {
            checkNoNewPlaceholders(base.exists ? base.text : '', input.content, 'content');
          }
          return { text: base.exists ? adoptLineEnding(input.content, base.codec.eol) : input.content };
        },
        tooLarge: refuseHuge('write_file'),
      }),
    });
    return success(changeMessage(outcome), changeDetails(outcome));
  },
});
