/**
 * A tool the chat model can call. editgate's file tools, the read-only exploration tools and bash all take
 * this shape, so the loop runs them alike. The edit tools are one kit among several: a model family's native
 * edit tool (Anthropic's text editor, OpenAI's apply_patch) can be offered in their place later, executed
 * through the same gate, without the loop or the transcript changing.
 */
export interface AgentToolResult {
  ok: boolean;
  /** What the model reads. */
  message: string;
  /** A few words for the transcript's tool line: "120 lines", "3 matches", "exit 0". */
  summary: string;
  /** Stable error code when not ok. */
  code?: string;
  /**
   * When not ok: what went wrong in words a person reads, apart from the advice `message` gives the model
   * (editgate's tools keep them apart: core/errors.ts); the transcript shows this.
   */
  happened?: string;
  /** Text a person sees under the tool line (a command's output), sanitised by the transcript. */
  output?: string;
}

export interface AgentToolContext {
  /** Aborted when the person interrupts: a tool that can stop early (bash, a search) does. */
  signal: AbortSignal;
}

export interface AgentTool {
  name: string;
  description: string;
  /** JSON Schema of the input object. */
  inputSchema: Record<string, unknown>;
  /** Changes files: its calls show diffs and are asked about unless policy or a grant allows. */
  changes: boolean;
  /** What a call is about, for its line in the transcript: a path, a pattern, a command. */
  target(input: Record<string, unknown>): string;
  /**
   * The files a call reads or changes, as the call names them, when the tool describes its calls (editgate's
   * file tools do: `describeCall`); the session keeps track of them. Absent for tools that only search or
   * run commands.
   */
  paths?(input: Record<string, unknown>): string[];
  run(input: Record<string, unknown>, context: AgentToolContext): Promise<AgentToolResult>;
}

export function textInput(input: Record<string, unknown>, name: string): string | undefined {
  const value = input[name];
  return typeof value === 'string' ? value : undefined;
}

export function numberInput(
  input: Record<string, unknown>,
  name: string,
  fallback: number,
  max?: number,
): number {
  const value = input[name];
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return fallback;
  const whole = Math.floor(value);
  return max === undefined ? whole : Math.min(max, whole);
}

export function failed(code: string, message: string): AgentToolResult {
  return { ok: false, code, message, summary: `✗ ${code}` };
}
