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

/**
 * What a call is about, as the tool itself says (`ToolSpec.describe`): every front end that shows, logs or
 * tracks a call reads this instead of guessing which argument holds its path.
 */
export interface CallDescription {
  /**
   * The call in a few words for a person: "Edit src/app.ts", "Patch 3 files: add a.ts, move b.ts → c.ts".
   * Built from model data: a screen shows it through its own sanitising, as any model text.
   */
  title: string;
  /**
   * Every path the call reads or changes, as the call names them (relative to the root, or absolute), in
   * the call's order, each once; a move gives its old path and then its new one. Empty when the input
   * names none (invalid input included).
   */
  paths: string[];
}

/** The input a `describe` is given: the call's own object, aliases mapped, nothing else checked. */
export type CallInput = Readonly<Record<string, unknown>>;

/**
 * One model-facing tool: its name, the rules it teaches in its description, its schema, how it describes a
 * call, and its run, which answers with `Details` (details.ts).
 */
export interface ToolSpec<
  Input = unknown,
  Details extends Record<string, unknown> = Record<string, unknown>,
> {
  name: string;
  title: string;
  /** What a model reads about the tool; a function of the configuration when it quotes numbers from it. */
  description: string | ((config: DescriptionConfig) => string);
  schema: z.ZodType<Input>;
  annotations: ToolAnnotations;
  /**
   * The call described before it runs, from its unchecked input: reads only the fields it needs, whatever
   * their type, and never throws (a call with bad input is still shown and logged).
   */
  describe(input: CallInput): CallDescription;
  run(input: Input, context: ToolContext): Promise<ToolSuccess<Details>>;
}

export function defineTool<Input, Details extends Record<string, unknown>>(
  spec: ToolSpec<Input, Details>,
): ToolSpec<Input, Details> {
  return spec;
}

/** A path shown in a title: long ones cut (a title is one line), the whole path stays in `paths`. */
const TITLE_PATH_CHARS = 200;

/** A field of an unchecked input when it is a non-empty string, else undefined. */
export function textField(input: CallInput, name: string): string | undefined {
  const value = Object.hasOwn(input, name) ? input[name] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** " (3 edits)" for an array of three, '' for anything else: how many parts a call has, in a title. */
export function counted(value: unknown, word: string): string {
  if (!Array.isArray(value)) return '';
  return ` (${value.length} ${word}${value.length === 1 ? '' : 's'})`;
}

/** A path as a title shows it. */
export function titlePath(path: string): string {
  return path.length <= TITLE_PATH_CHARS ? path : `${path.slice(0, TITLE_PATH_CHARS)}…`;
}

/**
 * The description of a call on one file (its `file_path`): "VERB PATH" and any `more` words after it; the
 * tool's own title when the input names no file.
 */
export function fileCall(input: CallInput, verb: string, fallback: string, more = ''): CallDescription {
  const path = textField(input, 'file_path');
  if (path === undefined) return { title: fallback, paths: [] };
  return { title: `${verb} ${titlePath(path)}${more}`, paths: [path] };
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
