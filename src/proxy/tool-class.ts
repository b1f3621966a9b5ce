import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A tool call's arguments. */
export type Args = Record<string, unknown>;

/** What a write plan may ask of the upstream server while it works out a change. */
export interface PlanContext {
  /** Call one of the upstream server's tools (its own preview, a listing); the client never sees this call. */
  callUpstream(name: string, args: Args): Promise<CallToolResult>;
}

/**
 * What one call of a write tool would do, worked out before anything is forwarded.
 * - forward: this call writes nothing (a dry run), so it goes through as it is;
 * - write: it replaces the file at `path` (absolute) with `expected(current bytes)`, which throws
 *   CannotShow when that cannot be known exactly;
 * - card: it writes, but not in a way editgate can show as a diff (`note` says why; `path`, absolute, the
 *   file it writes when known, so roots, deny globs, policy and hooks apply to it);
 * - failed: the server's own preview failed: its result is the answer, and nothing is asked or forwarded.
 */
export type WritePlan =
  | { kind: 'forward'; why: string }
  | { kind: 'write'; path: string; expected: (current: Buffer | null) => Buffer }
  | { kind: 'card'; note: string; path?: string }
  | { kind: 'failed'; result: CallToolResult };

/** Thrown by a plan's `expected` when the new content cannot be known exactly: a card is shown instead. */
export class CannotShow extends Error {
  override readonly name = 'CannotShow';
}

export interface WriteShape {
  /** How editgate knows what the tool writes, said to the person with the diff. */
  basis: string;
  plan(args: Args, context: PlanContext): Promise<WritePlan>;
}

/**
 * How a write tool writes a whole file's exact bytes, for a change the person took only part of (the proxy
 * sends this call instead of the model's): the arguments that leave `bytes` at `absolute` (a path the server
 * takes as it is), or undefined when the tool cannot write those bytes exactly (it writes text as UTF-8,
 * and they are not UTF-8).
 */
export type WholeFileWriter = (absolute: string, bytes: Buffer) => Args | undefined;

/** The text whose UTF-8 bytes are exactly `bytes`, or undefined: what a tool taking text as UTF-8 can write. */
export function utf8Exactly(bytes: Buffer): string | undefined {
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : undefined;
}

/**
 * A path a read-only call reads (a file, or a folder it lists or searches). `roots`: the tool is known to
 * read files (an adapter's; the path is absolute, as the server resolves it), so a path outside the roots is
 * refused as editgate's own read tools refuse it; `ifInside`: only known to be a path argument (a generic
 * read-only tool), so it is checked when it lies inside a root, and anything outside them is the server's
 * business. A relative one is taken as relative to the first root, as the guard takes it: where such a
 * server most likely resolves it, and if not, a refusal too many rather than a read of a denied file.
 */
export interface ReadTarget {
  path: string;
  scope: 'roots' | 'ifInside';
}

/**
 * What a read-only call reads: its targets, or why editgate cannot tell (the call is then refused with that
 * reason, which says what to do).
 */
export type ReadTargets = ReadTarget[] | { unknown: string };

/**
 * Whether a listing must leave out an entry (absolute path): outside the roots, under a deny glob or `.git`,
 * or denied to every read by read policy, as editgate's own listings leave it out. Nobody is asked.
 */
export type HiddenFromListing = (absolute: string) => Promise<boolean>;

/** A listing's result with the entries `hidden` names taken out; `targets`: what the call reads. */
export type ListingFilter = (
  result: CallToolResult,
  targets: ReadTarget[],
  hidden: HiddenFromListing,
) => Promise<CallToolResult>;

/**
 * How the proxy treats a tool, decided when the tool list is read:
 * - read-only: relayed as it is, once every path it reads (`reads`, when known) passes the guard and read
 *   policy as for editgate's own read tools (deny globs, `.git`, policy rules, a question when policy asks);
 * - write: each call becomes a diff and a question (WriteShape);
 * - card: each call is asked about with its arguments laid out, since no diff can be shown; `paths` names
 *   the arguments that are paths, when known, so roots, deny globs and policy apply to them.
 */
export type ToolClass =
  | {
      kind: 'read-only';
      basis: string;
      reads?: (args: Args, context: PlanContext) => Promise<ReadTargets>;
      /** For a tool that lists names: what a listing of editgate's own would not show, taken out. */
      listing?: ListingFilter;
    }
  | { kind: 'write'; basis: string; shape: WriteShape; writesWhole?: WholeFileWriter }
  | { kind: 'card'; basis: string; paths?: (args: Args, context: PlanContext) => Promise<string[]> };

/** The text of a tool result's text blocks. */
export function resultText(result: CallToolResult): string {
  return result.content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .filter(Boolean)
    .join('\n');
}
