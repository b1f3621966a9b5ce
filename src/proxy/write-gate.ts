/**
 * Every use of editgate's gate by the proxy, in this one file, so that it is the only thing to move when
 * the gate's internals change (issue #12). The proxy does not write files: the upstream server does. What
 * editgate adds around that write is here:
 *
 *   propose   read the file through the guard (inside the roots, deny globs), work out the bytes the server
 *             will write, and the diff: Gate.propose with a ChangeRequest whose prepare is a
 *             workspace.edit that returns the whole new text (requireRead: false: the model read the file
 *             through the server, not through us); the proposal is never committed by editgate
 *   decide    before-change hooks, policy rules, session grants and the person: Gate.decide (which audits
 *             a denial itself); Gate.discard afterwards, whatever the answer
 *   recheck   right before forwarding: the file still has the bytes the diff was made from, and the path
 *             still leads where it did (Guard.recheck)
 *   settle    after the server wrote: compare the file with what was shown; record in the undo history the
 *             bytes the server replaced (History.record with a reverse patch, the same state folder
 *             `editgate undo` reads), append the audit line, run the after-change hooks
 *
 * and, for calls that cannot be shown as a diff (cards): checkPath (Guard.resolve: roots and deny globs),
 * vetoCall (the before-change hooks, given the call: DENIED_HOOK), screenCall (the policy rules,
 * PolicyEngine.evaluate), auditCall (appendAudit) and afterCall (the after-change hooks).
 */
import { fstatSync } from 'node:fs';
import path from 'node:path';
import { diffLines, formatUnifiedDiff } from '../core/diff.js';
import { EditgateError, isEditgateError } from '../core/errors.js';
import { decodeText, encodeText, type TextCodec } from '../core/text.js';
import type { Approver } from '../gate/approval.js';
import { appendAudit } from '../gate/audit.js';
import { decidedWith } from '../gate/commit.js';
import { type Approval, Gate } from '../gate/gate.js';
import type { CallWithoutDiff } from '../gate/hooks.js';
import { PolicyEngine } from '../gate/policy.js';
import type { Proposal } from '../gate/proposal.js';
import type { ConfiguredOptions } from '../tools/config.js';
import { changedWindow } from '../workspace/commit.js';
import { type Fingerprint, sha256 } from '../workspace/fingerprint.js';
import { Guard } from '../workspace/guard.js';
import { openGuarded } from '../workspace/guarded-open.js';
import { History } from '../workspace/history.js';
import { closeQuietly, O_READ, readAt } from '../workspace/io.js';
import type { Snapshot } from '../workspace/read.js';
import type { ReversePatch } from '../workspace/reverse-patch.js';
import { Streamer } from '../workspace/stream/index.js';
import { type FileChange, Workspace } from '../workspace/workspace.js';

export interface WriteGateOptions {
  /** Absolute workspace roots: the proxy shows and allows writes inside them only. */
  roots: string[];
  /** The config's policy rules, deny globs, hooks and audit log: the same as for editgate's own tools. */
  config: Pick<ConfiguredOptions, 'policy' | 'deny' | 'hooks' | 'auditLog'>;
  /** Where undo history is kept, so `editgate undo FILE` can restore what was there before. */
  stateDir: string;
  /** Who is asked when policy says ask. */
  approve: Approver;
}

/** A write tool's call as the gate needs it: the file, and the bytes the server will leave in it. */
export interface WriteCall {
  tool: string;
  /** Absolute path of the file the server will write. */
  path: string;
  input: Record<string, unknown>;
  /** The bytes the server writes, given the file's bytes now (null: it does not exist). */
  expected: (current: Buffer | null) => Buffer;
}

/** A write worked out and not yet forwarded: what the person sees, and what the file must be afterwards. */
export interface PendingWrite {
  tool: string;
  /** Workspace-relative path, '/'-separated. */
  path: string;
  absolute: string;
  /** The root the file is in. */
  root: string;
  /** noop: the server would leave the file as it is. */
  kind: 'create' | 'modify' | 'noop';
  unifiedDiff: string;
  stats: { added: number; removed: number };
  /** What the diff of the text does not show (an encoding or byte-order mark the server changes). */
  notes: string[];
  readonly proposal: Proposal;
  readonly before: Buffer | null;
  readonly expected: Buffer;
}

export interface Settled {
  /** The file is byte for byte what was shown. */
  matches: boolean;
  /** The file is not what it was before the call. */
  changed: boolean;
  /** The old content is in the undo history: `editgate undo` restores it. */
  undoable: boolean;
  /** When the file is not what was shown: the diff from what was shown to what is there. */
  difference?: string;
  /** What after-change hooks said, for the model. */
  hookMessage?: string;
}

/** The decision that let a write or a call go ahead, as the audit log records it. */
export type Allowed = Pick<Approval, 'decision' | 'decidedBy' | 'rule' | 'grant' | 'auto'>;

function encodingNotes(base: Snapshot, written: { text: string; codec: TextCodec }): string[] {
  if (!base.exists) return [];
  const notes: string[] = [];
  if (base.codec.encoding !== written.codec.encoding) {
    notes.push(`The file is ${base.codec.encoding} now; the server writes it as ${written.codec.encoding}.`);
  }
  if (base.codec.bom !== written.codec.bom) {
    notes.push(`The server ${written.codec.bom ? 'adds a' : 'removes the'} byte-order mark.`);
  }
  // Only between texts that both have line endings: a one-line file has no style to change.
  const eol = (codec: TextCodec) =>
    codec.mixedEol ? 'mixed' : codec.eol === '\r\n' ? 'CRLF' : codec.eol === '\r' ? 'CR' : 'LF';
  const breaks = /[\r\n]/;
  if (breaks.test(base.text) && breaks.test(written.text) && eol(base.codec) !== eol(written.codec)) {
    notes.push(
      `The server turns the file's ${eol(base.codec)} line endings into ${eol(written.codec)} (the diff marks CR as ␍).`,
    );
  }
  return notes;
}

/**
 * The file's bytes and fingerprint from one open, or null when it does not exist. Opened through its pinned
 * folder (workspace/guarded-open.ts): a folder on the way swapped for a link cannot make this read outside.
 */
async function readCurrent(
  absolute: string,
  root: string,
): Promise<{ bytes: Buffer; fingerprint: Fingerprint } | null> {
  const fd = openGuarded(absolute, O_READ, { root });
  if (fd === null) return null;
  try {
    const stats = fstatSync(fd);
    const bytes = await readAt(fd, 0, stats.size);
    return { bytes, fingerprint: { size: bytes.length, mtimeMs: stats.mtimeMs, hash: sha256(bytes) } };
  } finally {
    closeQuietly(fd);
  }
}

/** Text for a diff of bytes editgate may not be able to decode. */
function textOf(bytes: Buffer | null): string | undefined {
  if (bytes === null) return '';
  try {
    return decodeText(bytes).text;
  } catch {
    return undefined;
  }
}

/** The one file's change behind a proposal the proxy made. */
function changeOf(proposal: Proposal): FileChange {
  return proposal.files[0]!.change;
}

/** How to put back `before` once the server left `after` there: the one span of bytes that differs. */
function reversePatch(before: Buffer, after: Buffer): ReversePatch {
  const window = changedWindow(before, after);
  return {
    kind: 'memory',
    spans: [
      {
        newStart: window.start,
        newLength: window.newEnd - window.start,
        oldStart: window.start,
        old: Buffer.from(before.subarray(window.start, window.oldEnd)),
      },
    ],
  };
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

export class WriteGate {
  private constructor(
    private readonly gate: Gate,
    private readonly history: History,
    private readonly policy: PolicyEngine,
    private readonly options: WriteGateOptions,
  ) {}

  static async create(options: WriteGateOptions): Promise<WriteGate> {
    const guard = await Guard.create({ roots: options.roots, deny: options.config.deny });
    const history = new History({ stateDir: options.stateDir });
    // No plan for huge files: a file at or above the streaming threshold is refused (TOO_LARGE), since the
    // proxy shows a diff of the whole text the server will write.
    // The state folder's change-set journals, as editgate's own tools keep them: a set another editgate
    // process left half renamed in these roots is rolled back before the proxy reads a file of it.
    const workspace = new Workspace({ guard, history, streamer: new Streamer(), stateDir: options.stateDir });
    // The config's rules for read_file govern reading here as in editgate's own tools: a policy that asks
    // before reads asks before the proxy reads a file to show its diff.
    const readOnlyTools = ['read_file'];
    const gate = new Gate({
      workspace,
      readOnlyTools,
      approve: options.approve,
      policy: options.config.policy,
      hooks: options.config.hooks,
      requireReadBeforeEdit: false,
      auditLog: options.config.auditLog,
    });
    return new WriteGate(gate, history, new PolicyEngine(options.config.policy, readOnlyTools), options);
  }

  /**
   * Work out the write: the file read through the guard (OUTSIDE_ROOT for a path outside the roots or
   * matching a deny glob), the bytes the server will leave, and the diff. Throws what the guard, the read
   * (BINARY, ENCODING: no diff can be shown) or `call.expected` throws.
   */
  async propose(call: WriteCall): Promise<PendingWrite> {
    let before: Buffer | null = null;
    let expected: Buffer = Buffer.alloc(0);
    const notes: string[] = [];
    const proposal = await this.gate.propose({
      tool: call.tool,
      path: call.path,
      input: call.input,
      requireRead: false,
      prepare: async (workspace, resolved, options) => {
        let same = false;
        const change: FileChange = await workspace.edit(
          resolved,
          {
            compute: (base) => {
              before = base.exists ? (base.bytes ?? encodeText(base.text, base.codec)) : null;
              expected = call.expected(before);
              // The new bytes as editgate reads text: BINARY or ENCODING if they are not text it can show.
              const written = decodeText(expected);
              notes.push(...encodingNotes(base, written));
              same = sameBytes(before, expected);
              return { text: written.text };
            },
          },
          options,
        );
        // Bytes that differ under the same text (an encoding or byte-order mark the server changes) are
        // still a change; the notes say what the diff of the text cannot show.
        if (!same && change.kind === 'noop') change.kind = 'modify';
        return change;
      },
    });
    // editgate never commits it: the upstream server writes the file.
    await this.gate.discard(proposal);
    const { resolved } = changeOf(proposal);
    return {
      tool: call.tool,
      path: proposal.path,
      absolute: resolved.absolute,
      root: resolved.root,
      kind: proposal.kind === 'noop' ? 'noop' : proposal.kind === 'create' ? 'create' : 'modify',
      unifiedDiff: proposal.unifiedDiff,
      stats: proposal.stats,
      notes,
      proposal,
      before,
      expected,
    };
  }

  /** Hooks, policy, session grants, then the person. Throws DENIED_HOOK, DENIED_POLICY or DENIED_USER. */
  async decide(pending: PendingWrite): Promise<Allowed> {
    const approval = await this.gate.decide(pending.proposal);
    return { decision: approval.decision, decidedBy: approval.decidedBy, ...decidedWith(approval) };
  }

  /** Right before forwarding: STALE if the file is no longer what the diff was made from. */
  async recheck(pending: PendingWrite): Promise<void> {
    const { proposal } = pending;
    const { resolved, base } = changeOf(proposal);
    const now = await readCurrent(resolved.absolute, resolved.root);
    if ((now?.fingerprint.hash ?? null) !== (base.fingerprint?.hash ?? null)) {
      throw new EditgateError(
        'STALE',
        `${proposal.path} changed after its diff was shown (something else wrote it), so the call was not forwarded and nothing was written. Read the file again, then make the call again.`,
        { path: proposal.path, reason: now === null ? 'deleted' : 'changed' },
      );
    }
    await this.gate.workspace.guard.recheck(resolved);
  }

  /**
   * After the server's write: compare the file with what was shown. Whatever the server did to it, the old
   * content goes into the undo history (when the file changed and still exists), the audit log gets a line
   * and the after-change hooks run.
   */
  async settle(pending: PendingWrite, allowed: Allowed): Promise<Settled> {
    const { proposal, before, expected } = pending;
    const { resolved, base } = changeOf(proposal);
    const absolute = resolved.absolute;
    const actual = await readCurrent(absolute, resolved.root);
    const matches = actual?.bytes.equals(expected) === true;
    const changed = !sameBytes(before, actual?.bytes ?? null);
    let undoable = false;
    if (changed && actual) {
      await this.history.record(absolute, {
        created: before === null,
        reverse: before === null ? null : reversePatch(before, actual.bytes),
        after: actual.fingerprint,
        tool: pending.tool,
      });
      undoable = true;
    }

    let difference: string | undefined;
    let unifiedDiff = proposal.unifiedDiff;
    let stats = proposal.stats;
    if (!matches) {
      const [shown, found, old] = [textOf(expected), textOf(actual?.bytes ?? null), textOf(before)];
      difference =
        actual === null
          ? `${pending.path} does not exist after the call.`
          : shown === undefined || found === undefined
            ? `${pending.path} holds ${actual.bytes.length} bytes that differ from the ${expected.length} shown (not text editgate can show as a diff).`
            : formatUnifiedDiff(diffLines(shown, found), {
                oldPath: `${pending.path} (as shown)`,
                newPath: `${pending.path} (as written)`,
              });
      const real = old !== undefined && found !== undefined ? diffLines(old, found) : undefined;
      unifiedDiff = real ? formatUnifiedDiff(real, { oldPath: pending.path, newPath: pending.path }) : '';
      stats = real ? { added: real.added, removed: real.removed } : { added: 0, removed: 0 };
    }

    if (this.options.config.auditLog) {
      await appendAudit(this.options.config.auditLog, {
        time: new Date().toISOString(),
        tool: pending.tool,
        path: pending.path,
        kind: proposal.kind,
        decision: allowed.decision,
        decidedBy: allowed.decidedBy,
        ...decidedWith(allowed),
        stats,
        hashBefore: base.fingerprint?.hash ?? null,
        hashAfter: actual?.fingerprint.hash ?? null,
        ...(matches ? {} : { reason: 'the server left the file other than the diff that was approved' }),
      });
    }

    let hookMessage: string | undefined;
    const afterChange = this.options.config.hooks?.afterChange;
    if (afterChange && changed) {
      try {
        const said = await afterChange({
          tool: pending.tool,
          path: pending.path,
          absolutePath: absolute,
          kind: before === null ? 'create' : actual === null ? 'delete' : 'modify',
          stats,
          unifiedDiff,
        });
        if (typeof said === 'string' && said.trim()) hookMessage = said.trim();
      } catch (error) {
        // The file is written; a failing observer must not turn that into a failure.
        hookMessage = `after-change hook failed: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    return {
      matches,
      changed,
      undoable,
      ...(difference ? { difference } : {}),
      ...(hookMessage ? { hookMessage } : {}),
    };
  }

  /**
   * A path a read-only call reads, checked as editgate's own read tools check theirs (Gate.resolveForRead:
   * roots, deny globs, read policy and, when it asks, the person); a folder it lists: roots, deny globs and
   * read policy's deny rules (as a listing of editgate's own). A missing file is the server's to report.
   */
  async checkRead(tool: string, absolute: string): Promise<void> {
    try {
      await this.gate.resolveForRead(tool, absolute);
    } catch (error) {
      if (isEditgateError(error, 'FILE_NOT_FOUND')) return;
      if (!isEditgateError(error, 'IS_DIRECTORY')) throw error;
      const relative = await this.checkPath(absolute);
      if (!this.gate.readDenied({ relative })) return;
      throw new EditgateError('DENIED_POLICY', `Policy does not allow reading ${relative}. Do not retry.`, {
        path: relative,
      });
    }
  }

  /**
   * Whether a listing leaves `absolute` out, as editgate's own listings do: outside the roots, under a deny
   * glob or `.git` (OUTSIDE_ROOT), or denied to every read by read policy. Nobody is asked.
   */
  async hiddenFromListing(absolute: string): Promise<boolean> {
    try {
      return this.gate.readDenied({ relative: await this.checkPath(absolute) });
    } catch (error) {
      if (isEditgateError(error, 'OUTSIDE_ROOT')) return true;
      return false; // a special file, say: the guard refuses to read it, but its name is no secret
    }
  }

  /**
   * A path a card's call names, checked as editgate checks its own: inside a root and not matching a deny
   * glob (OUTSIDE_ROOT otherwise). Folders are fine here. Returns it relative to its root.
   */
  async checkPath(absolute: string): Promise<string> {
    const given = absolute.length > 1 ? absolute.replace(/\/+$/, '') : absolute;
    try {
      return (await this.gate.workspace.guard.resolve(given)).relative;
    } catch (error) {
      // The guard refuses folders only after the root and deny checks: a folder there is inside.
      if (!isEditgateError(error, 'IS_DIRECTORY')) throw error;
      const root = [...this.gate.workspace.guard.roots]
        .sort((a, b) => b.length - a.length)
        .find((candidate) => given === candidate || given.startsWith(`${candidate}${path.sep}`));
      return root === undefined ? '.' : path.relative(root, given).split(path.sep).join('/') || '.';
    }
  }

  /**
   * The before-change hooks for a call without a diff, run first as for a change (before policy, grants and
   * the person): DENIED_HOOK, audited, when one denies.
   */
  async vetoCall(call: CallWithoutDiff): Promise<void> {
    const verdict = await this.options.config.hooks?.beforeCall?.(call);
    if (!verdict || typeof verdict !== 'object' || !('deny' in verdict)) return;
    await this.auditCall(call.tool, call.paths, {
      decision: 'deny',
      decidedBy: 'hook',
      reason: verdict.deny,
    });
    throw new EditgateError(
      'DENIED_HOOK',
      `A before-change hook refused this call of ${call.tool}: ${verdict.deny}`,
      {
        tool: call.tool,
        reason: verdict.deny,
      },
    );
  }

  /** The after-change hooks for a call without a diff that the server carried out: what they said. */
  async afterCall(call: CallWithoutDiff): Promise<string | undefined> {
    const afterCall = this.options.config.hooks?.afterCall;
    if (!afterCall) return undefined;
    try {
      const said = await afterCall(call);
      return typeof said === 'string' && said.trim() ? said.trim() : undefined;
    } catch (error) {
      // The call is carried out; a failing observer must not turn that into a failure.
      return `after-change hook failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  /**
   * Policy for a call without a diff: DENIED_POLICY if a rule denies the tool on any of its paths (or, with
   * no known paths, a rule without a path denies the tool); 'allow' when rules allow it everywhere.
   */
  screenCall(tool: string, paths: string[]): 'allow' | 'ask' {
    const verdicts = (paths.length > 0 ? paths : ['']).map((p) => ({
      path: p,
      ...this.policy.evaluate(tool, p),
    }));
    const denied = verdicts.find((verdict) => verdict.action === 'deny');
    if (denied) {
      throw new EditgateError(
        'DENIED_POLICY',
        `Policy does not allow ${tool}${denied.path ? ` on ${denied.path}` : ''}${denied.rule?.path ? ` (rule: ${denied.rule.path} → deny)` : ''}. Do not retry; tell the user if it is needed.`,
        { tool, path: denied.path || undefined, rule: denied.rule },
      );
    }
    return verdicts.every((verdict) => verdict.action === 'allow') ? 'allow' : 'ask';
  }

  /** One audit line for a call without a diff: allowed (and by whom) or denied. */
  async auditCall(
    tool: string,
    paths: string[],
    outcome: { decision: string; decidedBy: string; reason?: string },
  ): Promise<void> {
    if (!this.options.config.auditLog) return;
    await appendAudit(this.options.config.auditLog, {
      time: new Date().toISOString(),
      tool,
      path: paths.join(', '),
      kind: 'call',
      decision: outcome.decision,
      decidedBy: outcome.decidedBy,
      ...(outcome.reason ? { reason: outcome.reason } : {}),
    });
  }
}
