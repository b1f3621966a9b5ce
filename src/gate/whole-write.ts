/**
 * A write someone else will make (the server behind the proxy, an agent's own edit tool), proposed as the
 * whole bytes it will leave: the one way both work out a change editgate does not commit. `prepare` is a
 * ChangeRequest's: it reads the file through the workspace, asks the writer's semantics for the bytes it
 * will write given the bytes there now, and diffs them as text. The bytes are kept (`before`, `expected`)
 * for `gate.settle` after the write, and `notes` say what the diff of the text cannot show.
 */
import { decodeText, encodeText, type TextCodec } from '../core/text.js';
import type { ResolvedPath } from '../workspace/guard.js';
import type { FileChange, PrepareOptions, Workspace } from '../workspace/workspace.js';
import { sameBytes } from './settle.js';

/**
 * What the writer leaves, found while preparing: the bytes before (null: no file; undefined: not kept, a
 * huge file's deletion) and after (null: deleted).
 */
export interface WholeWrite {
  before: Buffer | null | undefined;
  expected: Buffer | null;
  notes: string[];
}

/**
 * A ChangeRequest's `prepare` for a writer that leaves `expected(current)` in the file (the bytes there now,
 * null for no file). `found` is filled in as the file is read. The new bytes must be text editgate can show
 * (BINARY, ENCODING otherwise).
 */
export function prepareWholeWrite(
  expected: (current: Buffer | null) => Buffer,
  found: WholeWrite,
  /** Who writes, as the notes name it: "the server", "Claude Code's Edit". */
  writer: string,
): (workspace: Workspace, resolved: ResolvedPath, options: PrepareOptions) => Promise<FileChange> {
  return async (workspace, resolved, options) => {
    let same = false;
    const change = await workspace.edit(
      resolved,
      {
        compute: (base) => {
          found.before = base.exists ? (base.bytes ?? encodeText(base.text, base.codec)) : null;
          found.expected = expected(found.before);
          const written = decodeText(found.expected);
          found.notes.push(...encodingNotes(base, written, writer));
          same = sameBytes(found.before, found.expected);
          return { text: written.text };
        },
      },
      options,
    );
    // Bytes that differ under the same text (an encoding or byte-order mark the writer changes) are still a
    // change; the notes say what the diff of the text cannot show.
    if (!same && change.kind === 'noop') change.kind = 'modify';
    return change;
  };
}

/** A ChangeRequest's `prepare` for a writer that deletes the file; `found` gets the bytes it removes. */
export function prepareWholeDelete(
  found: WholeWrite,
): (workspace: Workspace, resolved: ResolvedPath, options: PrepareOptions) => Promise<FileChange> {
  return async (workspace, resolved, options) => {
    const change = await workspace.remove(resolved, options);
    found.expected = null;
    // Every byte as read, when held in memory (a huge file's are copied aside, not kept here).
    const reverse = change.removed?.reverse;
    found.before =
      reverse?.kind === 'memory' && reverse.spans.length === 1 ? reverse.spans[0]!.old : undefined;
    return change;
  };
}

/** What a writer changes that a diff of the text does not show: the encoding, the byte-order mark, line ends. */
export function encodingNotes(
  base: { exists: boolean; text: string; codec: TextCodec },
  written: { text: string; codec: TextCodec },
  writer: string,
): string[] {
  const Writer = writer.charAt(0).toUpperCase() + writer.slice(1);
  if (!base.exists) return [];
  const notes: string[] = [];
  if (base.codec.encoding !== written.codec.encoding) {
    notes.push(`The file is ${base.codec.encoding} now; ${writer} writes it as ${written.codec.encoding}.`);
  }
  if (base.codec.bom !== written.codec.bom) {
    notes.push(`${Writer} ${written.codec.bom ? 'adds a' : 'removes the'} byte-order mark.`);
  }
  // Only between texts that both have line endings: a one-line file has no style to change.
  const eol = (codec: TextCodec) =>
    codec.mixedEol ? 'mixed' : codec.eol === '\r\n' ? 'CRLF' : codec.eol === '\r' ? 'CR' : 'LF';
  const breaks = /[\r\n]/;
  if (breaks.test(base.text) && breaks.test(written.text) && eol(base.codec) !== eol(written.codec)) {
    notes.push(
      `${Writer} turns the file's ${eol(base.codec)} line endings into ${eol(written.codec)} (the diff marks CR as ␍).`,
    );
  }
  return notes;
}
