/**
 * The JSON Schema of every tool's structuredContent. structuredContent is the library's ToolResult as is
 * ({ ok, message, details } or { ok: false, code, message, details, happened, advice? }), so a program
 * reading MCP results and one calling createEditTools directly see the same shape.
 *
 * Flat on purpose. A client compiles every tool's output schema when it lists the tools (the TypeScript
 * SDK, with Ajv), on the path of every session's start. A union of success and failure with every detail
 * field typed took it 70-130 ms for editgate's seven tools, about a fifth of a cold start; this shape takes
 * 15-30 ms (measured in fresh processes, issue #12). The detail fields are named in `details`' description
 * instead; the library's ToolResult and its details are their typed contract. Details stay open: a field
 * added later is no break.
 */

const OK = {
  type: 'boolean',
  description:
    'true: the call did what it says (for a change tool: written, staged in preview mode, or nothing to change); false: refused or failed, see code',
};
const CODE = {
  type: 'string',
  description:
    'Only when ok is false: a stable editgate error code (NOT_FOUND, AMBIGUOUS, STALE, OUTSIDE_ROOT, DENIED_USER, ...)',
};
const MESSAGE = {
  type: 'string',
  description:
    'The result for the model, the same text as the content; on failure, what went wrong and what to do next',
};

const HAPPENED = {
  type: 'string',
  description:
    'Only when ok is false: what went wrong, in words for a person too (no tool names or parameters); message is this and the advice',
};
const ADVICE = {
  type: 'string',
  description:
    'Only when ok is false, when there is any: what the model should do next (the rest of message)',
};

function resultSchema(details: string): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      ok: OK,
      code: CODE,
      message: MESSAGE,
      happened: HAPPENED,
      advice: ADVICE,
      details: { type: 'object', description: details },
    },
    required: ['ok', 'message', 'details'],
  };
}

const READ_RESULT = resultSchema(
  'On success: path (relative to the workspace root), lines (in the file), complete (every line has now been read, so the file may be edited), and firstLine, lastLine and encoding when they apply. On failure: tool, and what the code is about (e.g. path).',
);

const CHANGE_RESULT = resultSchema(
  [
    'On success: tool; path (relative to the workspace root); kind (create | modify | delete | noop); summary',
    '(one line); added and removed (lines); unifiedDiff; written (the file on disk was changed by this call);',
    'and when they apply: files (a change to several files: path, kind, added, removed of each), replacements,',
    'tiers (matching tiers used when old_string was not exact), decision (once | file | all | policy |',
    'session), decidedBy (user: a person answered | auto: approved without asking, see auto | policy: see rule',
    '| session: see grant), rule, grant (file | all), auto (e.g. --yes), approvalReason (the note a person',
    'gave with the approval), editedByUser (the diff of what the person changed before approving), hash',
    '(content hash of the file as written), hookMessage, and in preview mode changeId (pass it to',
    'apply_change), changeHash and expiresAt (ISO 8601). On failure: tool, and what the code is about (e.g.',
    'path).',
  ].join(' '),
);

/** The output schema for a tool: read_file has its own details; every change tool shares one shape. */
export function outputSchemaFor(tool: string): Record<string, unknown> {
  return tool === 'read_file' ? READ_RESULT : CHANGE_RESULT;
}
