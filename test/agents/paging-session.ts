import type { ScriptedSession } from './sessions.js';

/**
 * The long file of issue #28 (975 lines, 42.6 KB; Claude Code cut a result of this size to a 2 KB preview,
 * Gemini CLI keeps the first 8,000 and last 32,000 characters of anything over 40,000). Each line is unique,
 * so an edit names one place.
 */
const LINES = 975;
export const LONG_FILE = Array.from(
  { length: LINES },
  (_, i) => `const value${String(i + 1).padStart(4, '0')} = compute('row ${i + 1}', ${i * 7});\n`,
).join('');

const NEAR_END = "const value0900 = compute('row 900', 6293);";
const NEAR_END_AFTER = 'const value0900 = 0;';

/**
 * The long file read page by page inside the client (editgate's MCP pages stay under every known client's
 * cut-off): the first page says it is partial and where to go on; an edit near the end before that page is
 * shown is PARTIAL_READ (nothing written); after reading on from the offset it gave (the rest fits one page) the same
 * edit is written byte-exact. The model's next request must carry each result, so the client passed it whole.
 */
export const LONG_FILE_PAGING: ScriptedSession = {
  title:
    'a 42.6 KB file read page by page; an edit near the end refused until its page is read, then byte-exact',
  files: { 'long.ts': LONG_FILE },
  turns: [
    { call: [{ tool: 'read_file', input: { file_path: 'long.ts' } }] },
    {
      call: [
        {
          tool: 'edit_file',
          input: { file_path: 'long.ts', old_string: NEAR_END, new_string: NEAR_END_AFTER },
        },
      ],
    },
    { call: [{ tool: 'read_file', input: { file_path: 'long.ts', offset: 496 } }] },
    {
      call: [
        {
          tool: 'edit_file',
          input: { file_path: 'long.ts', old_string: NEAR_END, new_string: NEAR_END_AFTER },
        },
      ],
    },
    { say: 'Done: edited line 900 after reading its page.' },
  ],
  expectFiles: { 'long.ts': LONG_FILE.replace(NEAR_END, NEAR_END_AFTER) },
  expectToldModel: [
    // The first page's last lines and its pointer onward reached the model: the client did not cut it.
    { afterTurn: 0, contains: "compute('row 495', 3458)", what: 'the first page, uncut (to line 495)' },
    {
      afterTurn: 0,
      contains: 'Next: read_file with offset=',
      what: 'that the page is partial, and where next',
    },
    {
      afterTurn: 1,
      contains: 'edit_file failed (PARTIAL_READ)',
      what: 'the refusal of an edit on unseen lines',
    },
    { afterTurn: 2, contains: "compute('row 975', 6818)", what: 'the last page, to the last line' },
    { afterTurn: 3, contains: 'Edited long.ts: 1 replacement', what: 'the edit after the page was read' },
  ],
};
