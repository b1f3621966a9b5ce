/**
 * The workspace as the gate sees it: the sandbox (guard), what the agent has seen (ledger), undo history,
 * and the two ways a file is held (in memory, or streamed when it is huge). It turns "change this file so"
 * into a FileChange (the new content and its diff, computed but not written) and commits FileChanges. The
 * gate above decides about a FileChange without knowing which path made it or what holds its content.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { type Diff, diffLines } from '../core/diff.js';
import { EditgateError, type EditgateError as EditgateErrorType, throwIfCancelled } from '../core/errors.js';
import { formatBytes } from '../core/format-bytes.js';
import type { MatchTier } from '../core/match.js';
import { decodeText, encodeText, type TextCodec } from '../core/text.js';
import { commitChanges } from './change-set.js';
import { hasForeignJournals, recoverChangeSets } from './change-set-journal.js';
import { type CommitBase, commitChange, type NewContent, type Written } from './commit.js';
import { EarlyWrite } from './early-write.js';
import { type Fingerprint, isStatFingerprint } from './fingerprint.js';
import type { Guard, ResolvedPath } from './guard.js';
import type { FileIdentity } from './guarded-open.js';
import { type ChangeSetRef, type History, type HistoryEntry, NO_FILE } from './history.js';
import { Ledger } from './ledger.js';
import { lockFolder } from './lock.js';
import { readSnapshot, type Snapshot } from './read.js';
import { applyReverse, PatchWriter, type ReversePatch, removePatch, undoPlan } from './reverse-patch.js';
import {
  discardPrepared,
  type PartialDiff,
  type StreamedChange,
  type Streamer,
  type StreamFile,
  type StreamPlanner,
} from './stream/index.js';

export type ChangeKind = 'create' | 'modify' | 'delete' | 'noop';

/**
 * A base the workspace built: always with the canonical root its file lies in, so every open of it and its
 * commit (write, rename, unlink) walk from there through the pinned folder, never following a link
 * (guarded-open.ts). Required by type: a base made from a read that did not go through the root (the way
 * `*** Delete File` and move sources once were, issue #27) does not compile as a FileChange's base.
 */
export type RootedBase = CommitBase & { root: string };

/** A file held in memory, read through its pinned folder from the root (`readResolved`). */
type RootedSnapshot = Snapshot & { root: string };

/** A huge file opened through its pinned folder from the root (`openStreamed`). */
type RootedStreamFile = StreamFile & { root: string };

/**
 * One file's change, computed and ready to commit; nothing is written yet. The same type whatever holds
 * the new content: `content` is text, a prepared temp file or a deletion.
 */
export interface FileChange {
  /** Where the file is, as the guard resolved it (the commit checks the path again). */
  resolved: ResolvedPath;
  /** Canonical absolute path. */
  path: string;
  /** Workspace-relative path, '/'-separated: what people, globs and models see. */
  display: string;
  kind: ChangeKind;
  /** The file as it was: the commit refuses (STALE) unless it still is. Walked to from its root. */
  base: RootedBase;
  /** What the commit writes; null for a no-op (nothing to write). */
  content: NewContent | null;
  diff: Diff;
  /** Old and new text when both are held in memory (never for a streamed huge file). */
  texts?: { before: string; after: string };
  /** How many replacements a string edit made. */
  replacements?: number;
  /** Tolerant matching tiers used, when not exact. */
  tiers?: MatchTier[];
  /** What people and the model should know about it (e.g. its diff shows part of the change). */
  note?: string;
  /**
   * Set when `diff` shows only part of the change (a streamed change of more places than a diff keeps):
   * nobody can be asked to approve it as shown, so the gate refuses to ask (it may still be written when
   * policy or a session grant allows it without asking).
   */
  partialDiff?: PartialDiff;
  /** How history records it: a step that can be undone, or an undo (history steps back). */
  history: 'record' | 'step-back';
  /** A deletion that is half of a move (apply_patch's "*** Move to:"): the path the file moves to. */
  movedTo?: string;
  /**
   * A deletion that can be undone: every byte of the file (its reverse patch from nothing) and its mode,
   * which history keeps (undo creates the file again with them).
   */
  removed?: { reverse: ReversePatch; mode: number | null };
}

/** What an edit computes from a file held in memory. */
export interface ComputedText {
  text: string;
  /**
   * How the new text is encoded when it is not the file's own (a moved file keeps its encoding, byte-order
   * mark and line endings, also over an existing file); default the file's own, or UTF-8 without a BOM.
   */
  codec?: TextCodec;
  /** Permission bits of a file the change creates (a moved file keeps its own); default 0666 minus umask. */
  mode?: number;
  replacements?: number;
  tiers?: MatchTier[];
}

/** How a tool changes one file, on whichever path the file takes. */
export interface EditSpec {
  /** Decode with this encoding instead of sniffing. */
  encoding?: string;
  /** The new text from the file held in memory (`base.exists` false: it does not exist yet). */
  compute(base: Snapshot): ComputedText | Promise<ComputedText>;
  /** The same edit planned on a huge file's bytes; absent: a huge file is refused with `tooLarge`. */
  plan?: StreamPlanner;
  /**
   * 'region': a part of the file read is enough when every line the change touches was read in the current
   * version (read-coverage.ts); default 'full': the whole file read (what replaces a whole file needs).
   */
  readRule?: 'full' | 'region';
  /** Why a huge file cannot take this edit, and what to use instead. */
  tooLarge?: (file: { display: string; size: number; threshold: number }) => EditgateErrorType;
}

export interface PrepareOptions {
  /** The file must have been read (in full, unless it is huge) and be unchanged since. */
  requireRead: boolean;
  signal?: AbortSignal;
  /**
   * Nobody will be asked about this change (policy or a grant allows it, or the approver says yes to
   * everything): its new bytes may be written and fsynced beside the file while it is decided on
   * (early-write.ts). Whoever drops the change calls `discard`, as for any change.
   */
  writeAhead?: boolean;
}

/** A file opened for reading: held in memory, or (huge) open for the streaming path. */
export type OpenedFile = { kind: 'memory'; snapshot: Snapshot } | { kind: 'stream'; file: StreamFile };

export interface WorkspaceOptions {
  guard: Guard;
  history: History;
  streamer: Streamer;
  ledger?: Ledger;
  /**
   * The state folder (history, trust records): change sets keep their journal in its `change-sets` folder
   * while they are renamed into place. Without one, beside the locks (defaultJournalDir).
   */
  stateDir?: string;
}

export class Workspace {
  readonly guard: Guard;
  readonly ledger: Ledger;
  readonly history: History;
  readonly streamer: Streamer;
  readonly journalDir: string;
  /** Head starts on changes not yet committed or discarded (early-write.ts), by the change they write. */
  private readonly early = new WeakMap<FileChange, EarlyWrite>();

  constructor(options: WorkspaceOptions) {
    this.guard = options.guard;
    this.history = options.history;
    this.streamer = options.streamer;
    this.ledger = options.ledger ?? new Ledger();
    this.journalDir = options.stateDir ? join(options.stateDir, 'change-sets') : defaultJournalDir();
  }

  /**
   * Change sets a dead process left half renamed in these roots (change-set-journal.ts), rolled back (or
   * forward) before anything is read or written here: every entry point (library, CLI, MCP server, proxy,
   * chat) goes through the workspace, so none ever sees or writes a file of a half-renamed set. One stat
   * when there is nothing to recover (hasForeignJournals); concurrent calls share one recovery.
   */
  recover(): Promise<void> {
    if (!this.recovering && hasForeignJournals(this.journalDir)) {
      this.recovering = recoverChangeSets(this.journalDir, this.guard.roots)
        .then(() => {})
        .finally(() => {
          this.recovering = undefined;
        });
    }
    return this.recovering ?? Promise.resolve();
  }

  private recovering: Promise<void> | undefined;

  /** An existing file opened to read: in memory, or for streaming when it is huge. Close a streamed one. */
  async open(resolved: ResolvedPath, options: { encoding?: string } = {}): Promise<OpenedFile> {
    await this.recover();
    return this.checked(resolved, async (checked) => {
      const file = await this.openStreamed(checked);
      if (file) return { kind: 'stream', file };
      const snapshot = await this.readResolved(checked, { encoding: options.encoding });
      return { kind: 'memory', snapshot };
    });
  }

  /** The change `spec` makes to the file as it is now, computed on the file's own path. */
  async edit(resolved: ResolvedPath, spec: EditSpec, options: PrepareOptions): Promise<FileChange> {
    await this.recover();
    return this.checked(resolved, (checked) => this.editChecked(checked, spec, options));
  }

  /**
   * `work` on the file the guard checked. Every open goes through the file's pinned folder and refuses a file
   * other than the one checked (guarded-open.ts); when that happens (an editor saved the file in between, or
   * a folder on the way is being swapped), the path is checked again once and the work done on what that
   * check finds, or refused.
   */
  private async checked<T>(resolved: ResolvedPath, work: (checked: ResolvedPath) => Promise<T>): Promise<T> {
    try {
      return await work(resolved);
    } catch (error) {
      if (!isChangedOnTheWay(error)) throw error;
      const again = await this.guard.resolve(resolved.absolute);
      if (again.absolute !== resolved.absolute) throw error;
      return work(again);
    }
  }

  private async editChecked(
    resolved: ResolvedPath,
    spec: EditSpec,
    options: PrepareOptions,
  ): Promise<FileChange> {
    throwIfCancelled(options.signal);
    const file = resolved.exists ? await this.openStreamed(resolved) : null;
    if (file) {
      try {
        if (!spec.plan) throw this.tooLarge(spec, file);
        if (options.requireRead) this.ledger.check(file.path, file.fingerprint, { display: file.display });
        const streamed = await this.streamer.change(file, spec.encoding, spec.plan, options.signal);
        return streamedChange(resolved, file, streamed, 'record');
      } finally {
        await file.close();
      }
    }
    // Without an encoding of its own, an edit decodes the file as read_file was told to.
    const base = await this.readResolved(resolved, {
      encoding: spec.encoding ?? this.ledger.get(resolved.absolute)?.encoding,
    });
    if (options.requireRead && base.exists) {
      this.ledger.check(resolved.absolute, base.fingerprint, {
        display: resolved.relative,
        region: spec.readRule === 'region',
      });
    }
    const computed = await spec.compute(base);
    throwIfCancelled(options.signal);
    const kind: ChangeKind = !base.exists ? 'create' : computed.text === base.text ? 'noop' : 'modify';
    const codec = computed.codec ?? base.codec;
    // Started before the diff, so the fsync runs while the diff, the decision and the stale check are made.
    const early =
      options.writeAhead && kind === 'modify'
        ? new EarlyWrite(resolved.absolute, computed.text, codec, { root: base.root, display: base.display })
        : undefined;
    try {
      const change: FileChange = {
        resolved,
        path: resolved.absolute,
        display: resolved.relative,
        kind,
        base,
        content:
          kind === 'noop'
            ? null
            : {
                type: 'text',
                text: computed.text,
                codec,
                ...(!base.exists && computed.mode !== undefined ? { mode: computed.mode } : {}),
              },
        diff: diffLines(base.text, computed.text),
        texts: { before: base.text, after: computed.text },
        history: 'record',
      };
      if (options.requireRead && base.exists && spec.readRule === 'region') {
        this.ledger.checkCovered(resolved.absolute, change.diff, { display: resolved.relative });
      }
      if (computed.replacements !== undefined) change.replacements = computed.replacements;
      if (computed.tiers) change.tiers = computed.tiers;
      if (early) this.early.set(change, early);
      return change;
    } catch (error) {
      await early?.discard();
      throw error;
    }
  }

  /**
   * The change that deletes an existing file (a patch's `*** Delete File`); FILE_NOT_FOUND when there is
   * none. A huge file's deletion is not diffed line by line.
   */
  async remove(resolved: ResolvedPath, options: PrepareOptions): Promise<FileChange> {
    throwIfCancelled(options.signal);
    await this.recover();
    return this.checked(resolved, (checked) => this.removeChecked(checked, options));
  }

  private async removeChecked(resolved: ResolvedPath, options: PrepareOptions): Promise<FileChange> {
    const file = resolved.exists ? await this.openStreamed(resolved) : null;
    if (file) {
      try {
        if (options.requireRead) this.ledger.check(file.path, file.fingerprint, { display: file.display });
        const change = deletion(resolved, streamedBase(file), undefined, 'record');
        // Its bytes are copied aside now; the commit's stale check (its stat token) proves they are still its.
        change.removed = { reverse: await this.copyAside(file), mode: Number(file.stats.mode) & 0o777 };
        return change;
      } finally {
        await file.close();
      }
    }
    const base = await this.readResolved(resolved);
    if (!base.exists) {
      throw new EditgateError(
        'FILE_NOT_FOUND',
        {
          happened: `${resolved.relative} does not exist, so it cannot be deleted.`,
          advice: 'Check the path (it is relative to the workspace root).',
        },
        { path: resolved.relative },
      );
    }
    if (options.requireRead)
      this.ledger.check(resolved.absolute, base.fingerprint, { display: resolved.relative });
    const change = deletion(resolved, base, base.text, 'record');
    // Every byte as read (BOM, line endings and encoding included): what undo writes back.
    const old = base.bytes ?? encodeText(base.text, base.codec);
    change.removed = {
      reverse: { kind: 'memory', spans: [{ newStart: 0, newLength: 0, oldStart: 0, old }] },
      mode: base.mode,
    };
    return change;
  }

  /** A huge file's bytes, copied into a patch file (a reverse patch from nothing) before it is deleted. */
  private async copyAside(file: StreamFile): Promise<ReversePatch> {
    const writer = await PatchWriter.create(this.streamer.patchDir);
    try {
      await writer.begin(0, 0, 0, file.size);
      const chunk = Buffer.allocUnsafe(1 << 20);
      for (let at = 0; at < file.size; ) {
        const { bytesRead } = await file.handle.read(chunk, 0, Math.min(chunk.length, file.size - at), at);
        if (bytesRead === 0) throw changedSinceRead(file.display);
        await writer.old(Buffer.from(chunk.subarray(0, bytesRead)));
        at += bytesRead;
      }
      await writer.finish();
    } catch (error) {
      await writer.abort();
      throw error;
    }
    return { kind: 'file', path: writer.path };
  }

  /**
   * The change that puts back the content from before editgate's latest change to the file, if the file
   * still is what editgate wrote (else STALE). History steps back when it is committed.
   */
  async undo(resolved: ResolvedPath, options: { signal?: AbortSignal } = {}): Promise<FileChange> {
    await this.recover();
    return this.checked(resolved, (checked) => this.undoChecked(checked, options));
  }

  private async undoChecked(resolved: ResolvedPath, options: { signal?: AbortSignal }): Promise<FileChange> {
    throwIfCancelled(options.signal);
    const path = resolved.absolute;
    const display = resolved.relative;
    const entry = await this.history.peek(path);
    if (!entry) {
      throw new EditgateError(
        'NOTHING_TO_UNDO',
        `There is nothing to undo for ${display}: editgate has no change of its own to it on record (or has undone them all).`,
        { path: display },
      );
    }
    if (entry.deleted) return this.undoDeletion(resolved, entry, options);
    const file = await this.openStreamed(resolved, isStatFingerprint(entry.after) ? 'stream' : undefined);
    if (file) {
      try {
        if (file.fingerprint.hash !== entry.after.hash) throw changedSinceWritten(display);
        if (entry.created) return deletion(resolved, streamedBase(file));
        const streamed = await this.streamer.change(
          file,
          undefined,
          async () => undoPlan(reverseOf(entry, display)),
          options.signal,
        );
        return streamedChange(resolved, file, streamed, 'step-back');
      } finally {
        await file.close();
      }
    }
    const base = await this.readResolved(resolved, { known: entry.after });
    if (!base.exists || base.fingerprint?.hash !== entry.after.hash) throw changedSinceWritten(display);
    if (entry.created) return deletion(resolved, base, base.text);
    const before = await applyReverse(encodeText(base.text, base.codec), reverseOf(entry, display));
    // The earlier content is decoded with the encoding the file has now (editgate never changes it).
    const { encoding } = base.codec;
    const detected = encoding === 'utf8' || encoding === 'utf16le' || encoding === 'utf16be';
    const restored = decodeText(before, detected ? {} : { encoding });
    throwIfCancelled(options.signal);
    return {
      resolved,
      path,
      display,
      kind: restored.text === base.text ? 'noop' : 'modify',
      base,
      content:
        restored.text === base.text ? null : { type: 'text', text: restored.text, codec: restored.codec },
      diff: diffLines(base.text, restored.text),
      texts: { before: base.text, after: restored.text },
      history: 'step-back',
    };
  }

  /**
   * The undo of a deletion: the file created again, byte for byte, with its mode; refused (FILE_EXISTS)
   * when something else has created the path since, which the commit checks again under the lock.
   */
  private async undoDeletion(
    resolved: ResolvedPath,
    entry: HistoryEntry,
    options: { signal?: AbortSignal },
  ): Promise<FileChange> {
    const display = resolved.relative;
    const base = await this.readResolved(resolved, { known: null }).catch((error: unknown) => {
      // Whatever is there now (a file that is not text, a folder) is not for undo to replace.
      if (error instanceof EditgateError && error.code !== 'IO') throw recreatedError(display);
      throw error;
    });
    if (base.exists) throw recreatedError(display);
    const bytes = await applyReverse(Buffer.alloc(0), reverseOf(entry, display));
    throwIfCancelled(options.signal);
    const mode = entry.deleted?.mode;
    const content: NewContent = {
      type: 'bytes',
      bytes,
      ...(mode === null || mode === undefined ? {} : { mode }),
    };
    const change: FileChange = {
      resolved,
      path: resolved.absolute,
      display,
      kind: 'create',
      base,
      content,
      diff: { hunks: [], added: 0, removed: 0, identical: false },
      history: 'step-back',
    };
    if (bytes.length < this.streamer.threshold) {
      const { text } = decodeText(bytes);
      change.diff = diffLines('', text);
      change.texts = { before: '', after: text };
    } else {
      change.note = `${display} is put back as it was before editgate deleted it (${formatBytes(bytes.length)}; too large to show line by line).`;
    }
    return change;
  }

  /**
   * Writes a change (commit.ts: stale check under the lock, atomic write, fsync), then records it: a step
   * in history (or a step back, for an undo) and, in the ledger, a full read of what was written.
   */
  async commit(
    change: FileChange,
    options: { verify?: () => Promise<void>; signal?: AbortSignal; tool?: string } = {},
  ): Promise<Written> {
    if (!change.content) throw new Error(`a no-op change to ${change.display} has nothing to commit`);
    // Also here, not only when the change was computed: a process may have died part way since.
    const early = this.early.get(change);
    try {
      await this.recover();
      return await commitChange(change.base, change.content, {
        verify: options.verify,
        signal: options.signal,
        indexes: this.streamer.indexes,
        early,
        // Recorded while the folder fsync runs; the commit answers once both are done.
        whileFolderSyncs: (written) => this.recordWritten(change, written, options.tool),
      });
    } finally {
      // Taken by the commit, or (refused before it took it) removed here.
      await early?.discard();
    }
  }

  /** A written change recorded: a step in history (or a step back, for an undo) and a full read in the ledger. */
  private async recordWritten(
    change: FileChange,
    written: Written,
    tool: string | undefined,
    set?: ChangeSetRef,
  ): Promise<void> {
    const { path, display } = change;
    if (change.history === 'step-back') await this.history.pop(path, written.fingerprint ?? undefined);
    else if (change.removed) {
      // A deletion: its bytes and mode kept, so undo (of it, or of its set) creates the file again.
      await this.history.record(path, {
        created: false,
        reverse: change.removed.reverse,
        after: NO_FILE,
        tool,
        set,
        deleted: { mode: change.removed.mode },
      });
    } else if (written.fingerprint) {
      await this.history.record(path, {
        created: !change.base.exists,
        reverse: written.reverse,
        after: written.fingerprint,
        tool,
        set,
      });
    }
    if (written.fingerprint) {
      // The diff tells the ledger which lines the agent has seen of what was written (read coverage).
      const diff = change.content?.type === 'text' ? change.diff : undefined;
      this.ledger.recordWrite(path, written.fingerprint, { display, diff });
    } else this.ledger.forget(path);
  }

  /**
   * Writes several changes all or nothing (change-set.ts), then records each like `commit` does. History
   * marks them as one set, so undoing one file of it undoes them all.
   */
  async commitSet(
    changes: readonly FileChange[],
    options: { verify?: (change: FileChange) => Promise<void>; signal?: AbortSignal; tool?: string } = {},
  ): Promise<Written[]> {
    for (const change of changes) {
      if (!change.content) throw new Error(`a no-op change to ${change.display} has nothing to commit`);
      // A set writes its own temp files (change-set.ts); a head start is only for a single file's commit.
      await this.early.get(change)?.discard();
    }
    const verify = options.verify;
    await this.recover();
    const written = await commitChanges(
      changes.map((change) => ({
        base: change.base,
        content: change.content!,
        verify: verify ? () => verify(change) : undefined,
      })),
      { journalDir: this.journalDir, signal: options.signal, indexes: this.streamer.indexes },
    );
    const set = { id: randomUUID(), paths: changes.map((change) => change.path) };
    for (const [i, change] of changes.entries())
      await this.recordWritten(change, written[i]!, options.tool, set);
    return written;
  }

  /** A change that will not be committed (denied, failed, cancelled): remove what it left on disk. */
  async discard(change: FileChange): Promise<void> {
    await this.early.get(change)?.discard();
    if (change.content?.type === 'prepared') await discardPrepared(change.content.prepared);
    if (change.removed?.reverse.kind === 'file') await removePatch(change.removed.reverse.path);
  }

  /**
   * The file open for the streaming path when it takes it, else null. A file stays on the path it was read
   * or written on, whatever its size now: the ledger holds a stat fingerprint for a streamed file and a
   * content hash otherwise, and only the same path can compare them.
   */
  private async openStreamed(
    resolved: ResolvedPath,
    prefer?: 'stream' | 'memory',
  ): Promise<RootedStreamFile | null> {
    const seen = this.ledger.get(resolved.absolute)?.fingerprint;
    const preferred = prefer ?? (seen ? (isStatFingerprint(seen) ? 'stream' : 'memory') : undefined);
    const file = await this.streamer.open(resolved.absolute, resolved.relative, {
      prefer: preferred,
      ...guardedRead(resolved),
    });
    return file && Object.assign(file, { root: resolved.root });
  }

  /**
   * The file the guard resolved, read into memory through its folder pinned from the root, refusing a file
   * other than the one checked. Every in-memory base the workspace builds comes from here. `known`: the
   * fingerprint whose hash may be reused (default the ledger's; null: none).
   */
  private async readResolved(
    resolved: ResolvedPath,
    options: { encoding?: string; known?: Fingerprint | null } = {},
  ): Promise<RootedSnapshot> {
    const snapshot = await readSnapshot(resolved.absolute, {
      encoding: options.encoding,
      display: resolved.relative,
      known: options.known === undefined ? this.ledger.get(resolved.absolute)?.fingerprint : options.known,
      ...guardedRead(resolved),
    });
    return Object.assign(snapshot, { root: resolved.root });
  }

  private tooLarge(spec: EditSpec, file: StreamFile): EditgateErrorType {
    const facts = { display: file.display, size: file.size, threshold: this.streamer.threshold };
    return (
      spec.tooLarge?.(facts) ??
      new EditgateError(
        'TOO_LARGE',
        `${file.display} is too large for this change (${formatBytes(file.size)}; files of ${formatBytes(this.streamer.threshold)} or more are changed by streaming, which it cannot do). Nothing was written.`,
        { path: file.display, size: file.size, threshold: this.streamer.threshold },
      )
    );
  }
}

/** How a file the guard resolved is opened: from its root, expecting the file the guard checked. */
function guardedRead(resolved: ResolvedPath): { root: string; identity?: FileIdentity } {
  return resolved.identity ? { root: resolved.root, identity: resolved.identity } : { root: resolved.root };
}

/** The guarded open's refusal: the file or a folder on the way is not the one the guard checked. */
function isChangedOnTheWay(error: unknown): boolean {
  return (
    error instanceof EditgateError &&
    error.code === 'OUTSIDE_ROOT' &&
    (error.details as { reason?: unknown } | undefined)?.reason === 'changed'
  );
}

/** A huge file's base, as opened: with its root. */
function streamedBase(file: RootedStreamFile): RootedBase {
  return {
    path: file.path,
    exists: true,
    fingerprint: file.fingerprint,
    display: file.display,
    root: file.root,
  };
}

/** The change the streamer computed on `file`, which was opened from its root (`openStreamed`). */
function streamedChange(
  resolved: ResolvedPath,
  file: RootedStreamFile,
  streamed: StreamedChange,
  history: FileChange['history'],
): FileChange {
  const change: FileChange = {
    resolved,
    path: resolved.absolute,
    display: resolved.relative,
    kind: streamed.kind,
    base: { ...streamed.base, root: file.root },
    // A no-op prepared nothing.
    content: streamed.prepared ? { type: 'prepared', prepared: streamed.prepared } : null,
    diff: streamed.diff,
    history,
  };
  if (streamed.replacements !== undefined) change.replacements = streamed.replacements;
  if (streamed.tiers) change.tiers = streamed.tiers;
  if (streamed.note) change.note = streamed.note;
  if (streamed.partialDiff) change.partialDiff = streamed.partialDiff;
  return change;
}

/** A file's deletion (by default the undo of its creation). `before` is its text when held in memory. */
function deletion(
  resolved: ResolvedPath,
  base: RootedBase,
  before?: string,
  history: FileChange['history'] = 'step-back',
): FileChange {
  const change: FileChange = {
    resolved,
    path: resolved.absolute,
    display: resolved.relative,
    kind: 'delete',
    base,
    content: { type: 'delete' },
    // A huge file's deletion is not diffed line by line: its text was never read.
    diff:
      before === undefined ? { hunks: [], added: 0, removed: 0, identical: false } : diffLines(before, ''),
    history,
  };
  if (before !== undefined) change.texts = { before, after: '' };
  return change;
}

function reverseOf(entry: HistoryEntry, display: string) {
  if (!entry.reverse) throw changedSinceWritten(display);
  return entry.reverse;
}

function recreatedError(display: string): EditgateError {
  return new EditgateError(
    'FILE_EXISTS',
    `${display} was deleted by editgate's change, and something else has created ${display} since, so undoing would replace that file. Nothing was written. Move or remove ${display} first if the deleted file should come back.`,
    { path: display },
  );
}

function changedSinceRead(display: string): EditgateError {
  return new EditgateError(
    'STALE',
    `${display} changed while it was being read; nothing was written. Read it again and retry.`,
    { path: display },
  );
}

function changedSinceWritten(display: string): EditgateError {
  return new EditgateError(
    'STALE',
    `${display} has changed since editgate last wrote it, so undoing would lose those changes. Read the file and edit it back by hand if needed.`,
    { path: display },
  );
}

/**
 * Without a state folder, journals live beside the locks: they outlive a killed process (what they are
 * for), though not, on a tmpfs, a power loss. Every front end that has a state folder passes its own.
 */
function defaultJournalDir(): string {
  return join(lockFolder(), 'change-sets');
}
