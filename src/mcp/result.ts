import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorCode } from '../core/errors.js';
import { failed, type ToolResult } from '../tools/result.js';
import { jsonCopy } from './json-copy.js';

/** The `_meta` key of the result's data for programs: { ok, code (on failure), details }. */
export const RESULT_META_KEY = 'editgate/result';

/**
 * A library ToolResult as an MCP tool result: the message as text, isError for failures (so a client shows
 * every failure as a tool result the model can act on, never as a protocol error), and the data for
 * programs ({ ok, code, details }, the library's ToolResult without the message) under
 * `_meta["editgate/result"]`.
 *
 * Not structuredContent, on purpose (issue #28): Claude Code and Codex give the model
 * JSON.stringify(structuredContent) instead of the text when it is present, so the model paid for the
 * message, the headline and the diff again (one edit: 2.8x the text), escaped, and met a client's cut-off
 * sooner; and Claude Code showed the person that JSON instead of the text. Without structuredContent every
 * client gives the model exactly the text, and `_meta` reaches programs without reaching the model.
 */
export function toCallToolResult(result: ToolResult): CallToolResult {
  const { message, ...data } = result;
  return {
    // Details are plain data, but a client receives JSON: undefined fields dropped, anything JSON cannot
    // carry as JSON writes it. _meta first: the order CallToolResultSchema gives, so it takes this as is.
    _meta: { [RESULT_META_KEY]: jsonCopy(data) },
    content: [{ type: 'text', text: message }],
    isError: !result.ok,
  };
}

/** A failure raised by the MCP layer itself (before the tools run), in the same shape as the tools' own. */
export function failureResult(
  tool: string,
  code: ErrorCode,
  message: string,
  details: Record<string, unknown> = {},
): CallToolResult {
  return toCallToolResult(failed(tool, code, { happened: message }, details));
}
