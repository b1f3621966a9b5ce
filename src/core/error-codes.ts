/**
 * Every code an editgate result can fail with, what it means and what to do next, in one table: the
 * `ErrorCode` type is its keys, and docs/reference/errors.md is generated from it (a test fails when the
 * page is stale), so a new code cannot ship without the words a caller needs.
 */
export const ERROR_CODES = {
  NOT_FOUND: {
    means: 'The old text is not in the file (the closest text found is in the details).',
    next: 'Read the region again and copy the old text exactly, indentation included.',
  },
  AMBIGUOUS: {
    means: 'The old text is found more than once, and the call did not ask to replace every one.',
    next: 'Give more of the surrounding text so it matches one place, or ask to replace all.',
  },
  NO_CHANGE: {
    means: 'The edit would leave the file as it is.',
    next: 'Give the new text; nothing needs doing if the file already says it.',
  },
  FILE_NOT_FOUND: {
    means: 'The file does not exist.',
    next: 'Check the path; to create the file, write it whole.',
  },
  FILE_EXISTS: {
    means:
      'A file is already where the change would put one (e.g. an undo would bring back a deleted file that something has re-created, or a patch adds a file that exists).',
    next: 'Move or remove that file first, or change it with an edit instead.',
  },
  NOT_READ: {
    means: 'The place the change touches was not read in this session (reads belong to one session).',
    next: 'Read the file, or the lines the change touches, then make the change again.',
  },
  PARTIAL_READ: {
    means: 'Only part of the file was read, and the change reaches beyond it.',
    next: 'Read on from the offset given, then make the change again.',
  },
  STALE: {
    means: 'The file changed since it was read, or since the change was computed: nothing was written.',
    next: 'Read the file again and make the change against what it holds now.',
  },
  OUTSIDE_ROOT: {
    means: 'The path leads outside the workspace roots (through .., an absolute path or a link).',
    next: 'Use a path inside a root, or start editgate with the folder as a root.',
  },
  DENIED_POLICY: {
    means: 'A policy rule or a deny glob refused the change.',
    next: 'Do not retry the same change; if it should be allowed, change the rule in the config.',
  },
  DENIED_USER: {
    means: 'The person answered no (their reason, if any, is in the message).',
    next: 'Follow the reason; do not retry the same change unchanged.',
  },
  DENIED_HOOK: {
    means: 'A before-change hook refused the change (its output is in the message).',
    next: 'Fix what the hook reports, then make the change again.',
  },
  DENIED_NO_APPROVER: {
    means: 'The change needed approval and no one could be asked: not a person’s no.',
    next: 'Ask where a person can answer (a terminal, the review page, an MCP client with elicitation), or allow it by policy.',
  },
  BINARY: {
    means: 'The file holds binary data, which the text tools do not change.',
    next: 'Leave the file to a tool made for its format.',
  },
  ENCODING: {
    means: 'The file is not in an encoding editgate can read and write back faithfully.',
    next: 'Give its encoding (the CLI’s --encoding), or leave the file as it is.',
  },
  INVALID_INPUT: {
    means: 'The call’s input is malformed: a field missing, of the wrong type, or unknown.',
    next: 'Fix the field the message names and call again.',
  },
  INVALID_RANGE: {
    means: 'A line range lies outside the file, or ends before it starts.',
    next: 'Read the file for its line count and give a range inside it.',
  },
  UNKNOWN_TOOL: {
    means: 'No tool has that name (the message lists those there are).',
    next: 'Call one of the tools listed.',
  },
  TOO_LARGE: {
    means:
      'The file is too large for this kind of change, or the change’s diff too long to show whole (no one approves what they cannot see).',
    next: 'Split the change into smaller ones, or use a targeted edit (edit_file, edit_lines) on a huge file.',
  },
  NOTHING_TO_UNDO: {
    means: 'editgate keeps no change of this file to undo.',
    next: 'Nothing to do; change the file back by hand or with your version control.',
  },
  EXPIRED: {
    means: 'A proposed change (preview mode) expired, or belongs to another session.',
    next: 'Propose the change again in this session, then apply it.',
  },
  PERMISSION: {
    means: 'The operating system refused access to the file or its folder.',
    next: 'Check the file’s owner and mode; editgate does not change them.',
  },
  READ_ONLY: {
    means: 'The file system is mounted read-only.',
    next: 'Write elsewhere, or remount it writable.',
  },
  DISK_FULL: {
    means: 'There is no room left for the new file: nothing was written, the old file is whole.',
    next: 'Free some space, then make the change again.',
  },
  IS_DIRECTORY: {
    means: 'The path is a folder, not a file.',
    next: 'Give a file’s path.',
  },
  NAME_TOO_LONG: {
    means: 'A name in the path is longer than the file system allows.',
    next: 'Use a shorter name.',
  },
  CANCELLED: {
    means: 'The caller cancelled the call: nothing was written.',
    next: 'Call again if the change is still wanted.',
  },
  IO: {
    means: 'The operating system reported another input/output error: nothing was written.',
    next: 'Read the message for the system’s words, then try again.',
  },
} as const satisfies Record<string, { means: string; next: string }>;
