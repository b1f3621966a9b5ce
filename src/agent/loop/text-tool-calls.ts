/**
 * A model that cannot call tools through the server (no tool support, or a chat template without tools, a
 * common trap with local models) often writes the call as text instead: `<tool_call>{...}</tool_call>`,
 * `[TOOL_CALLS]`, or a bare JSON object naming one of the tools. Nothing runs then, and the person should
 * know why rather than wait for an edit that never comes.
 */
const MARKERS = /<tool_call>|<\|tool_call|<\|python_tag\|>|<function[=\s>]|\[TOOL_CALLS\]|<invoke name=/;

export function looksLikeTextToolCall(text: string, toolNames: readonly string[]): boolean {
  if (MARKERS.test(text)) return true;
  if (toolNames.length === 0) return false;
  const names = toolNames.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const named = new RegExp(`"(name|tool|function)"\\s*:\\s*"(${names})"`);
  return named.test(text) && /"(arguments|parameters|input|args)"\s*:/.test(text);
}

export function textToolCallMessage(model: string): string {
  return `${model} wrote a tool call as text instead of calling the tool, so nothing ran. The model (or the server's chat template for it) may not support tool calling: pick a model with tool support, and for Ollama check its template (ollama show MODEL --template) or use a newer build of the model.`;
}
