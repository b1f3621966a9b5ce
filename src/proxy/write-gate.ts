/**
 * Every use of editgate's gate by the proxy, in this one file. The proxy does not write files: the upstream
 * server does. What editgate adds around that write is the gate's, called from here:
 *
 *   propose   read the file through the guard (inside the roots, deny globs), work out the bytes the server
 *             will write, and the diff: Gate.propose with a ChangeRequest whose prepare is a
 *             workspace.edit that returns the whole new text (requireRead: false: the model read the file
 *             through the server, not through us); the proposal is never committed by editgate
 *   decide    before-change hooks, policy rules, session grants and the person: Gate.decide (which audits
 *             a denial itself); Gate.discard afterwards, whatever the answer. When the person took some
 *             hunks, the gate rebuilds the change from them (re-diffed, checked against the version shown,
 *             shown to onPreview again) and `takenPart` turns it into the exact bytes to write
 *   recheck   right before forwarding: Gate.recheck (the file still has the bytes the diff was made from,
 *             and the path still leads where it did)
 *   settle    after the server wrote: Gate.settle (gate/settle.ts), as for every write editgate did not
 *             make: the file compared with what was approved, the bytes it replaced kept in the undo
 *             history `editgate undo` reads, the audit line, the after-change hooks
 *
 * and, for calls that cannot be shown as a diff (cards): checkPath (the guard: roots and deny globs),
 * vetoCall (the before-call hooks: DENIED_HOOK), screenCall (policy, in the words of the gate's screen),
 * auditCall and afterCall, each the gate's; for read-only calls: checkRead (Gate.resolveForRead, as for
 * editgate's own reads) and hiddenFromListing (the guard and read policy's deny rules, for listings).
 */
import { EditgateError, isEditgateError } from '../core/errors.js';
import { decodeText, encodeText } from '../core/text.js';
import type { Approver } from '../gate/approval.js';
import type { Allowed, Approval, Gate, Settled } from '../gate/gate.js';
import type { CallWithoutDiff } from '../gate/hooks.js';
import { openGate } from '../gate/open-gate.js';
import type { Proposal } from '../gate/proposal.js';
import { prepareWholeWrite, type WholeWrite } from '../gate/whole-write.js';
import type { ConfiguredOptions } from '../tools/config.js';

export type { Allowed, Approval, Settled } from '../gate/gate.js';

export interface WriteGateOptions {
  /** Absolute workspace roots: the proxy shows and allows writes inside them only. */
  roots: string[];
  /** The config's policy rules, deny globs, hooks and audit log: the same as for editgate's own tools. */
  config: Pick<
    ConfiguredOptions,
    'policy' | 'deny' | 'hooks' | 'auditLog' | 'languageServers' | 'languageServerBudgetMs'
  >;
  /** Where undo history is kept, so `editgate undo FILE` can restore what was there before. */
  stateDir: string;
  /** Who is asked when policy says ask. */
  approve: Approver;
  /** The upstream server as the person knows it: who wrote, in the audit line. */
  server?: string;
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

export class WriteGate {
  private constructor(
    private readonly gate: Gate,
    private readonly options: WriteGateOptions,
  ) {}

  static async create(options: WriteGateOptions): Promise<WriteGate> {
    // No plan for huge files: a file at or above the streaming threshold is refused (TOO_LARGE), since the
    // proxy shows a diff of the whole text the server will write. The state folder's change-set journals
    // are kept as editgate's own tools keep them: a set another editgate process left half renamed in these
    // roots is rolled back before the proxy reads a file of it.
    const gate = await openGate({
      roots: options.roots,
      deny: options.config.deny,
      stateDir: options.stateDir,
      // The config's rules for read_file govern reading here as in editgate's own tools: a policy that asks
      // before reads asks before the proxy reads a file to show its diff.
      readOnlyTools: ['read_file'],
      approve: options.approve,
      policy: options.config.policy,
      hooks: options.config.hooks,
      requireReadBeforeEdit: false,
      auditLog: options.config.auditLog,
      // Configured language servers check the proxied server's writes as they check editgate's (#32 item 4).
      languageServers: options.config.languageServers,
      languageServerBudgetMs: options.config.languageServerBudgetMs,
      // One proxy process is one session: the writes of the server behind it, for editgate review --session.
      sessionLog: { face: 'proxy', label: 'editgate proxy' },
    });
    return new WriteGate(gate, options);
  }
  /** What a session review left for the model (editgate review --session): once, with the next result. */
  async takeReviewNote(): Promise<string | undefined> {
    return this.gate.sessionLog?.takeNote().catch(() => undefined);
  }

  /**
   * Work out the write: the file read through the guard (OUTSIDE_ROOT for a path outside the roots or
   * matching a deny glob), the bytes the server will leave, and the diff. Throws what the guard, the read
   * (BINARY, ENCODING: no diff can be shown) or `call.expected` throws.
   */
  async propose(call: WriteCall): Promise<PendingWrite> {
    const found: WholeWrite = { before: null, expected: null, notes: [] };
    const proposal = await this.gate.propose({
      tool: call.tool,
      path: call.path,
      input: call.input,
      requireRead: false,
      prepare: prepareWholeWrite(call.expected, found, 'the server'),
    });
    // editgate never commits it: the upstream server writes the file.
    await this.gate.discard(proposal);
    // A proxied call writes one file.
    const file = proposal.files[0]!;
    const { resolved } = file.change;
    return {
      tool: call.tool,
      path: file.path,
      absolute: resolved.absolute,
      root: resolved.root,
      kind: file.kind === 'noop' ? 'noop' : file.kind === 'create' ? 'create' : 'modify',
      unifiedDiff: file.unifiedDiff,
      stats: file.stats,
      notes: found.notes,
      proposal,
      before: found.before ?? null,
      expected: found.expected ?? Buffer.alloc(0),
    };
  }

  /**
   * Hooks, policy, session grants, then the person. Throws DENIED_HOOK, DENIED_POLICY, DENIED_USER, or
   * DENIED_NO_APPROVER when no one could be asked; CANCELLED when the client cancels the call meanwhile
   * (`signal`: the call's), so a question answered after that is no one's answer. `wholeOnly`: why the
   * server cannot be made to write part of the change (no tool of it writes exact bytes), so a choice of
   * some hunks is refused with it; without it, `Allowed.hunks` holds the part the person took.
   */
  async decide(pending: PendingWrite, signal?: AbortSignal, wholeOnly?: string): Promise<Approval> {
    return this.gate.decide(pending.proposal, signal, wholeOnly === undefined ? {} : { wholeOnly });
  }

  /**
   * The part of the change the person took hunk by hunk (`allowed.hunks`, rebuilt by the gate), as a write
   * of `tool`: the bytes it must leave are the rebuilt text encoded as the server would have written the
   * whole change (its encoding and byte-order mark; the text keeps the line endings the gate computed).
   * The rebuilt proposal is discarded here: the server writes it.
   */
  async takenPart(pending: PendingWrite, allowed: Approval, tool: string): Promise<PendingWrite> {
    const taken = allowed.hunks!.proposal;
    await this.gate.discard(taken);
    const file = taken.files[0];
    const content = file?.change.content;
    // No file left (the accepted hunks leave the text as it was): the text before, as the server writes it.
    const text = content?.type === 'text' ? content.text : pending.proposal.files[0]!.texts?.before;
    if (text === undefined) throw new Error(`${pending.path}: the rebuilt change holds no text`);
    const expected = encodeText(text, decodeText(pending.expected).codec);
    return {
      ...pending,
      tool,
      unifiedDiff: file?.unifiedDiff ?? '',
      stats: file?.stats ?? { added: 0, removed: 0 },
      proposal: taken,
      expected,
    };
  }

  /** Right before forwarding: STALE if the file is no longer what the diff was made from. */
  recheck(pending: PendingWrite): Promise<void> {
    return this.gate.recheck(pending.proposal);
  }

  /**
   * After the server's write (or a call that may have written): the gate settles it, as every write editgate
   * did not make. The file is compared with what was shown; the old content goes into the undo history,
   * the audit log gets a line and the after-change hooks run.
   */
  settle(pending: PendingWrite, allowed: Allowed): Promise<Settled> {
    return this.gate.settle({
      tool: pending.tool,
      writer: this.options.server ?? 'the proxied server',
      path: pending.absolute,
      before: pending.before,
      approved: { bytes: pending.expected, by: allowed },
    });
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
  checkPath(absolute: string): Promise<string> {
    return this.gate.checkCallPath(absolute);
  }

  /**
   * The before-change hooks for a call without a diff, run first as for a change (before policy, grants and
   * the person): DENIED_HOOK, audited, when one denies.
   */
  vetoCall(call: CallWithoutDiff): Promise<void> {
    return this.gate.vetoCall(call);
  }

  /** The after-change hooks for a call without a diff that the server carried out: what they said. */
  afterCall(call: CallWithoutDiff): Promise<string | undefined> {
    return this.gate.afterCall(call);
  }

  /**
   * Policy for a call without a diff: DENIED_POLICY if a rule denies the tool on any of its paths (or, with
   * no known paths, a rule without a path denies the tool); 'allow' when rules allow it everywhere.
   */
  screenCall(tool: string, paths: string[]): 'allow' | 'ask' {
    return this.gate.screenCall(tool, paths);
  }

  /** One audit line for a call without a diff: allowed (and by whom) or denied. */
  auditCall(
    tool: string,
    paths: string[],
    outcome: { decision: string; decidedBy: string; code?: string; reason?: string },
  ): Promise<void> {
    return this.gate.recordCall(tool, paths, outcome);
  }
}
