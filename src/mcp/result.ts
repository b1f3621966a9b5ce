import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorCode } from '../core/errors.js';
import { failed, type ToolResult } from '../tools/result.js';
import { jsonCopy } from './json-copy.js';

/**
 * A library ToolResult as an MCP tool result: the message as text for the model, the whole result as
 * structuredContent for programs, and isError for failures, so a client shows every failure as a tool
 * result the model can act on, never as a protocol error.
 */
export function toCallToolResult(result: ToolResult): CallToolResult {
  return {
    content: [{ type: 'text', text: result.message }],
    // Details are plain data, but a client receives JSON: undefined fields dropped, anything JSON cannot
    // carry as JSON writes it.
    structuredContent: jsonCopy(result) as Record<string, unknown>,
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
