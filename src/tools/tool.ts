import type { z } from 'zod';
import type { ChangeOutcome, ChangeRequest, Gate } from '../gate/gate.js';
import type { Streamer } from '../workspace/stream/streamer.js';
import type { ReadCoverage } from './read-coverage.js';
import type { ToolSuccess } from './result.js';

export interface ToolContext {
  gate: Gate;
  /** Propose, decide and commit a change, or, in preview mode, stage it for apply_change. */
  change(request: ChangeRequest): Promise<ChangeOutcome>;
  matching: 'exact' | 'tolerant';
  coverage: ReadCoverage;
  /** read_file's default line limit. */
  readLimit: number;
  /** read_file stops before its output passes this many characters. */
  maxReadChars: number;
  /** Huge files (at or above its threshold) are read and edited by streaming (tools/streaming.ts). */
  streamer?: Streamer;
}

/** MCP-style hints: what a client may tell a person about a tool before it runs. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

/** One model-facing tool: its name, the rules it teaches in its description, its schema and its run. */
export interface ToolSpec<Input = unknown> {
  name: string;
  title: string;
  description: string;
  schema: z.ZodType<Input>;
  annotations: ToolAnnotations;
  run(input: Input, context: ToolContext): Promise<ToolSuccess>;
}

export function defineTool<Input>(spec: ToolSpec<Input>): ToolSpec<Input> {
  return spec;
}
