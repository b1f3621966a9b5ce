import type { z } from 'zod';
import { checkNoNewPlaceholders } from '../core/placeholders.js';
import type { ChangeOutcome, ChangeRequest, Gate } from '../gate/gate.js';
import type { EditSpec, Workspace } from '../workspace/workspace.js';
import type { ToolSuccess } from './result.js';
import type { StringEditInput } from './string-edits.js';

export interface ToolContext {
  gate: Gate;
  workspace: Workspace;
  /** Propose, decide and commit a change, or, in preview mode, stage it for apply_change (the call's signal added). */
  change(request: Omit<ChangeRequest, 'signal'>): Promise<ChangeOutcome>;
  matching: 'exact' | 'tolerant';
  /** 'refuse': new text may not bring in placeholders for code left out (core/placeholders.ts). */
  placeholders: 'refuse' | 'allow';
  /** read_file's default line limit. */
  readLimit: number;
  /** read_file stops before its output passes this many characters. */
  maxReadChars: number;
  /** Cancels the call: nothing is written once it fires. */
  signal?: AbortSignal;
}

/** The configuration a description quotes, so a model reads the numbers in force. */
export interface DescriptionConfig {
  /** read_file's default number of lines. */
  readLimit: number;
  /** Files of at least this many bytes are streamed. */
  streamThreshold: number;
}

/** MCP-style hints: what a client may tell a person about a tool before it runs. */
export interface ToolAnnotations {
  /** The tool only reads. The gate allows such tools by default and their policy rules govern reading. */
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

/** One model-facing tool: its name, the rules it teaches in its description, its schema and its run. */
export interface ToolSpec<Input = unknown> {
  name: string;
  title: string;
  /** What a model reads about the tool; a function of the configuration when it quotes numbers from it. */
  description: string | ((config: DescriptionConfig) => string);
  schema: z.ZodType<Input>;
  annotations: ToolAnnotations;
  run(input: Input, context: ToolContext): Promise<ToolSuccess>;
}

export function defineTool<Input>(spec: ToolSpec<Input>): ToolSpec<Input> {
  return spec;
}

/**
 * edit_file's and multi_edit's change to a file held in memory: their edits checked and applied by core's
 * rules (string-edits.ts), which load with the first edit, not at start-up.
 */
export function stringEdits(edits: StringEditInput[], context: ToolContext): EditSpec['compute'] {
  return async (base) =>
    (await import('./string-edits.js')).computeStringEdits(base, base.display ?? '', edits, context.matching);
}

/** A ChangeRequest's `prepare` for an edit: the workspace computes it on the file's own path. */
export function editing(spec: EditSpec): ChangeRequest['prepare'] {
  return (workspace, resolved, options) => workspace.edit(resolved, spec, options);
}

/**
 * Refuses (before any file is read) string edits whose new_string brings in a placeholder for code left
 * out that its old_string lacks, unless the context allows placeholders. Both paths, in memory and streamed.
 */
export function refuseNewPlaceholders(edits: readonly StringEditInput[], context: ToolContext): void {
  if (context.placeholders === 'allow') return;
  edits.forEach((edit, i) => {
    const field = edits.length > 1 ? `Edit ${i + 1}: new_string` : 'new_string';
    checkNoNewPlaceholders(edit.old_string, edit.new_string, field);
  });
}
