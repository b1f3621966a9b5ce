/**
 * A client's tools/call, as the proxy serves it. A read-only tool is relayed once each path it reads passes
 * the guard and read policy, as editgate's own reads do. A recognised write becomes a
 * diff and a question: the file is read through editgate's guard, the bytes the server will write are
 * worked out (with the server's own preview where its semantics need it), the person is asked (hooks and
 * policy first, as for editgate's own tools), the file is checked again, the call is forwarded, and the file
 * is compared with what was shown afterwards. When the person takes only some hunks, the server is sent a
 * call that writes exactly those (write-gate.ts rebuilds them; `exactWriter` says which tool can). Anything else that may change something gets a card. A
 * refusal is a tool result with isError and the reason, so the model can tell it from success. While any
 * call is relayed, the roots are watched (change-watch.ts): what changed apart from what was approved is
 * told to the model, the person and the audit log.
 */

import path from 'node:path';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  CallToolRequest,
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { EditgateError, isEditgateError } from '../core/errors.js';
import { findingsNote } from '../core/finding-words.js';
import { KeyedQueue } from '../core/keyed-queue.js';
import type { CallWithoutDiff } from '../gate/hooks.js';
import { hunkNote } from '../tools/messages.js';
import type { Approvals } from './approvals.js';
import { currentCall, runInCall } from './call-context.js';
import { type CardRequest, cardTooLongError } from './card.js';
import type { ToolCatalog } from './catalog.js';
import type { ChangeWatch, UnapprovedChange } from './change-watch.js';
import { progressBack } from './relay.js';
import { undoCommand } from './shell-words.js';
import {
  type Args,
  CannotShow,
  type PlanContext,
  type ToolClass,
  type WholeFileWriter,
} from './tool-class.js';
import { type UpstreamLink, UpstreamUnavailable } from './upstream.js';
import { capLines, visibleText } from './visible-text.js';
import type { Approval, PendingWrite, Settled, WriteGate } from './write-gate.js';

type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface ToolCallContext {
  link: UpstreamLink;
  catalog: ToolCatalog;
  writeGate: WriteGate;
  approvals: Approvals;
  /** The upstream server as the person knows it. */
  server: string;
  /** Tools the person allowed for the rest of the session (from a card). */
  grantedTools: Set<string>;
  /** Tell the person something that needs no answer (log, client log, terminal). */
  report: (message: string) => void;
  /** What changes in the roots while a call runs, other than what was approved. */
  watch: ChangeWatch;
  /** Canonical roots, to name changed files the way the person knows them. */
  roots: readonly string[];
}

/** One tool call as the handler's steps need it. */
interface Call {
  tool: string;
  args: Args;
  /** The tool's title, as the server lists it. */
  title?: string;
  plans: PlanContext;
  /**
   * Relays the call as it is, watching the roots meanwhile: what changes there apart from `approved`
   * (absolute paths) is told to the model, the person and the audit log. `card`: the person allowed a call
   * whose effects no one could show, so what it changed is told as news, not as an error.
   */
  forward: (approved?: readonly string[], card?: boolean) => Promise<CallToolResult>;
  /** Relays another call of the same server in its place (watched as `forward`): a part of a change. */
  forwardInstead: (tool: string, args: Args, approved: readonly string[]) => Promise<CallToolResult>;
}

/**
 * How the server can be made to write a file's exact bytes (`tool`, and its arguments for them), for a
 * change the person took only part of; or why it cannot, so the change is taken whole or not at all.
 */
type ExactWriter = { tool: string; args: WholeFileWriter } | { wholeOnly: string };

/**
 * The tool asked to write the part of a change when the model's tool cannot: the whole-file writer of the
 * reference filesystem server, or a tool of that name and shape (a path and the whole content) elsewhere.
 */
const WHOLE_FILE_TOOL = 'write_file';

const MAX_DIFFERENCE_LINES = 120;
const MAX_DIFFERENCE_CHARS = 12_000;

function textResult(text: string, isError: boolean): CallToolResult {
  return { content: [{ type: 'text', text }], isError };
}

function refusal(tool: string, error: EditgateError | UpstreamUnavailable): CallToolResult {
  if (error instanceof UpstreamUnavailable) return textResult(error.message, true);
  return textResult(`editgate proxy did not run ${tool} (${error.code}): ${proxiedWording(error)}`, true);
}

/**
 * The guard words a path outside the roots for editgate's own tools ("use a path relative to the root"):
 * the proxied server takes its paths its own way (often absolute), so the proxy says what holds for it.
 */
function proxiedWording(error: EditgateError): string {
  const roots = error.details.roots;
  if (error.code !== 'OUTSIDE_ROOT' || error.details.reason !== undefined || !Array.isArray(roots))
    return error.message;
  const where = roots.length === 1 ? `the folder ${roots[0]}` : `the folders ${roots.join(', ')}`;
  return `The path is outside ${where}, which editgate guards for this server. Give a path inside ${roots.length === 1 ? 'it' : 'one of them'}, written as this server's tools take paths.`;
}

const MAX_LISTED_CHANGES = 20;

/** "created a.txt; changed b.txt; …", at most MAX_LISTED_CHANGES of them, saying how many more. */
function listChanges(changes: ReadonlyArray<UnapprovedChange & { shown: string }>): string {
  const listed = changes.slice(0, MAX_LISTED_CHANGES).map((change) => `${change.how} ${change.shown}`);
  const more = changes.length - listed.length;
  return `${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}

/** Per absolute path, one write at a time between its last check and its comparison afterwards. */
const pathQueue = new KeyedQueue();

export class ToolCallHandler {
  constructor(private readonly context: ToolCallContext) {}

  async handle(params: CallToolRequest['params'], extra: CallExtra): Promise<CallToolResult> {
    const request = { method: 'tools/call' as const, params };
    const { name } = params;
    const args = (params.arguments ?? {}) as Args;
    const forward = (approved: readonly string[] = [], card = false) =>
      this.watched(name, approved, card, () => this.forward(request, extra));
    // The same server, the request's own _meta (its progress token), another tool and its arguments.
    const forwardInstead = (tool: string, toolArgs: Args, approved: readonly string[]) =>
      this.watched(tool, approved, false, () =>
        this.forward({ ...request, params: { ...params, name: tool, arguments: toolArgs } }, extra),
      );
    let classified: Awaited<ReturnType<ToolCatalog['get']>>;
    try {
      classified = await this.context.catalog.get(name);
    } catch (error) {
      if (error instanceof UpstreamUnavailable) return refusal(name, error);
      throw error;
    }
    const toolClass = classified.class;
    return runInCall(
      { requestId: extra.requestId, signal: extra.signal, basis: toolClass.basis, notes: [] },
      () => {
        if (toolClass.kind === 'read-only') return this.read(name, args, toolClass, extra, forward);
        const call: Call = {
          tool: name,
          args,
          title: classified.tool?.title,
          plans: this.planContext(extra),
          forward,
          forwardInstead,
        };
        if (toolClass.kind === 'card') return this.card(call, toolClass, { sessionGrant: true });
        return this.write(call, toolClass);
      },
    );
  }

  /**
   * A read-only call: every path it reads is checked first, as editgate's own reads are (roots, deny globs,
   * `.git`, read policy and, when policy asks, the person); any refusal refuses the call.
   */
  private async read(
    tool: string,
    args: Args,
    toolClass: Extract<ToolClass, { kind: 'read-only' }>,
    extra: CallExtra,
    forward: () => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    if (!toolClass.reads) return forward();
    const call = currentCall();
    if (call) call.reads = true;
    let targets: Awaited<ReturnType<typeof toolClass.reads>>;
    try {
      targets = await toolClass.reads(args, this.planContext(extra));
      if (!Array.isArray(targets))
        return textResult(`editgate proxy did not run ${tool}: ${targets.unknown}`, true);
      for (const target of targets) {
        try {
          await this.context.writeGate.checkRead(tool, target.path);
        } catch (error) {
          // A generic tool's path outside every root is not a file of the workspace: the server's business.
          const outside = isEditgateError(error, 'OUTSIDE_ROOT') && error.details.reason === undefined;
          if (target.scope === 'ifInside' && outside) continue;
          throw error;
        }
      }
    } catch (error) {
      if (error instanceof UpstreamUnavailable || isEditgateError(error)) return refusal(tool, error);
      throw error;
    }
    const result = await forward();
    if (!toolClass.listing) return result;
    const { writeGate } = this.context;
    return toolClass.listing(result, targets, (absolute) => writeGate.hiddenFromListing(absolute));
  }

  /** A plan's own calls (a preview, a listing) write nothing: watched, and an error if they did. */
  private planContext(extra: CallExtra): PlanContext {
    return {
      callUpstream: (name, args) =>
        this.watched(
          name,
          [],
          false,
          async () =>
            (await this.context.link.request(
              { method: 'tools/call', params: { name, arguments: args } },
              { signal: extra.signal },
            )) as CallToolResult,
        ),
    };
  }

  /**
   * `relay`, with the roots watched while it runs (change-watch.ts): files that changed apart from `approved`
   * are told to the model (an error, unless the person allowed a `card` call whose effects no one could
   * show), to the person, and in the audit log.
   */
  private async watched(
    tool: string,
    approved: readonly string[],
    card: boolean,
    relay: () => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    const { result, unapproved } = await this.context.watch.around(approved, relay);
    if (unapproved.length === 0) return result;
    const named = unapproved.map((change) => ({ ...change, shown: this.shown(change.path) }));
    const list = listChanges(named);
    await this.context.writeGate.auditCall(
      tool,
      named.map((change) => change.shown),
      {
        decision: 'unasked',
        decidedBy: 'server',
        reason: `changed while ${tool} ran, and no one was asked: ${list}`,
      },
    );
    // File names are the server's to choose: made visible before they reach a screen.
    this.context.report(
      visibleText(
        `${this.context.server} › ${tool}: while it ran, files changed that no one was asked about: ${list}.`,
        { oneLine: true },
      ),
    );
    const text = card
      ? `editgate proxy: while ${tool} ran, these files changed (the user allowed the call without a diff): ${visibleText(list)}. editgate keeps no copy of what they held.`
      : `editgate proxy: while ${tool} ran, files changed that the user was not asked about (by the server, or by something else running at the same time): ${visibleText(list)}. editgate keeps no copy of what they held. Tell the user.`;
    return {
      ...result,
      content: [...result.content, { type: 'text', text }],
      ...(card ? {} : { isError: true }),
    };
  }

  /** An absolute path as the person knows it: relative to its root, or as it is outside them. */
  private shown(absolute: string): string {
    const root = [...this.context.roots]
      .sort((a, b) => b.length - a.length)
      .find((candidate) => absolute.startsWith(`${candidate}${path.sep}`));
    return root === undefined ? absolute : path.relative(root, absolute).split(path.sep).join('/');
  }

  /** The call relayed as it is; a lost server is a tool result that says so (the model can act on it). */
  private async forward(request: CallToolRequest, extra: CallExtra): Promise<CallToolResult> {
    try {
      const relayed = { method: 'tools/call', params: request.params as Record<string, unknown> };
      return (await this.context.link.request(relayed, {
        signal: extra.signal,
        onprogress: progressBack(relayed, extra),
      })) as CallToolResult;
    } catch (error) {
      if (error instanceof UpstreamUnavailable) return textResult(error.message, true);
      throw error;
    }
  }

  private async write(call: Call, toolClass: Extract<ToolClass, { kind: 'write' }>): Promise<CallToolResult> {
    const { tool, args, plans, forward } = call;
    const { writeGate } = this.context;
    let plan: Awaited<ReturnType<typeof toolClass.shape.plan>>;
    try {
      plan = await toolClass.shape.plan(args, plans);
    } catch (error) {
      if (error instanceof UpstreamUnavailable || isEditgateError(error)) return refusal(tool, error);
      throw error;
    }
    if (plan.kind === 'forward') return forward();
    if (plan.kind === 'failed') return plan.result;
    // The file it writes, when known, is checked and named to hooks and policy as a card's paths are.
    const noDiff = (note: string, path?: string) =>
      this.card(
        call,
        {
          kind: 'card',
          basis: 'it writes files, and this call cannot be shown as a diff',
          ...(path === undefined ? {} : { paths: async () => [path] }),
        },
        { note, sessionGrant: false },
      );
    if (plan.kind === 'card') return noDiff(plan.note, plan.path);

    let pending: PendingWrite;
    try {
      pending = await writeGate.propose({ tool, path: plan.path, input: args, expected: plan.expected });
    } catch (error) {
      if (error instanceof CannotShow)
        return noDiff(`editgate cannot show a diff: ${error.message}.`, plan.path);
      if (isEditgateError(error, 'BINARY') || isEditgateError(error, 'ENCODING')) {
        return noDiff(`editgate cannot show a diff: ${error.message}`, plan.path);
      }
      if (error instanceof UpstreamUnavailable || isEditgateError(error)) return refusal(tool, error);
      throw error;
    }
    // The server would leave the file as it is: nothing to ask about.
    // (It may write the same bytes again: that file is not news.)
    if (pending.kind === 'noop') return forward([pending.absolute]);
    currentCall()?.notes.push(...pending.notes);

    let allowed: Approval;
    // What is written: the call as it is, or the part of it the person took, as another call.
    let written = pending;
    let send = () => forward([pending.absolute]);
    try {
      const writer = await this.exactWriter(tool, toolClass, pending);
      allowed = await writeGate.decide(
        pending,
        currentCall()?.signal,
        'wholeOnly' in writer ? writer.wholeOnly : undefined,
      );
      if (allowed.hunks) {
        // The gate refuses a choice of some hunks when told wholeOnly: never the whole call for a part.
        if (!('tool' in writer)) throw new Error('a part of a change was allowed for a call taken whole');
        written = await writeGate.takenPart(pending, allowed, writer.tool);
        const args = await this.partArgs(writer, plan.path, written);
        send = () => call.forwardInstead(writer.tool, args, [pending.absolute]);
      }
    } catch (error) {
      if (error instanceof UpstreamUnavailable || isEditgateError(error)) return refusal(tool, error);
      throw error;
    }
    return pathQueue.run(pending.absolute, async () => {
      try {
        // The file is still the version the diff (and so the part taken of it) was made from.
        await writeGate.recheck(pending);
        if (written !== pending) await this.stillWritesWhole(written.tool);
      } catch (error) {
        if (error instanceof UpstreamUnavailable || isEditgateError(error)) return refusal(tool, error);
        throw error;
      }
      // Whatever the server answers, even if it went away mid-call, the file is compared afterwards; a call
      // the client cancelled may have written all the same, so it is compared (and kept for undo) too.
      let result: CallToolResult;
      try {
        result = await send();
      } catch (error) {
        await writeGate.settle(written, allowed);
        throw error;
      }
      const settled = await writeGate.settle(written, allowed);
      return this.afterWrite(result, written, settled, allowed.hunks ? { tool, allowed } : undefined);
    });
  }

  /**
   * How this server can write a file's exact bytes: the model's tool when it writes whole files, else the
   * server's WHOLE_FILE_TOOL when the catalog knows it as one; never a tool policy denies on this file. Or
   * why not, in words the person reads beside the hunks they cannot choose.
   */
  private async exactWriter(
    tool: string,
    toolClass: Extract<ToolClass, { kind: 'write' }>,
    pending: PendingWrite,
  ): Promise<ExactWriter> {
    const server = this.context.server;
    let name = tool;
    let writes = toolClass.writesWhole;
    if (!writes) {
      name = WHOLE_FILE_TOOL;
      const found = (await this.context.catalog.get(name)).class;
      writes = found.kind === 'write' ? found.writesWhole : undefined;
      if (!writes) {
        return {
          wholeOnly: `${pending.path} is written by ${server}, which takes the call whole: it has no tool editgate knows to write a file's exact bytes (a ${WHOLE_FILE_TOOL} of a path and the whole content)`,
        };
      }
    }
    try {
      this.context.writeGate.screenCall(name, [pending.path]);
    } catch (error) {
      if (!isEditgateError(error, 'DENIED_POLICY')) throw error;
      return {
        wholeOnly: `${pending.path} is written by ${server}, which takes the call whole: policy does not allow ${name} on it, the call that would write part of the change`,
      };
    }
    return { tool: name, args: writes };
  }

  /**
   * The arguments that make `writer` leave the part's bytes at `target` (the path the model's call named,
   * as the server resolves it), once that path is checked again through the guard and found to be the file
   * the diff was made of. ENCODING when the tool cannot write those bytes exactly.
   */
  private async partArgs(
    writer: Extract<ExactWriter, { tool: string }>,
    target: string,
    part: PendingWrite,
  ): Promise<Args> {
    if ((await this.context.writeGate.checkPath(target)) !== part.path) {
      throw new EditgateError(
        'STALE',
        `${part.path} no longer resolves to the file its diff was made of; nothing was written. Read the file again, then make the call again.`,
        { path: part.path, reason: 'changed' },
      );
    }
    const args = writer.args(target, part.expected);
    if (args === undefined) {
      throw new EditgateError(
        'ENCODING',
        `${writer.tool} writes text as UTF-8, and the hunks the user took do not make UTF-8 text, so nothing was written. Ask the user to accept the change whole or deny it.`,
        { path: part.path },
      );
    }
    return args;
  }

  /** Right before the part is sent: its tool is still one the catalog knows to write whole files. */
  private async stillWritesWhole(tool: string): Promise<void> {
    const found = (await this.context.catalog.get(tool)).class;
    if (found.kind === 'write' && found.writesWhole) return;
    throw new EditgateError(
      'STALE',
      `the server's ${tool} changed after the question was asked, so the part of the change the user took was not sent; nothing was written. Make the call again.`,
      { tool },
    );
  }

  /**
   * The server's answer, with what editgate found when it compared the file with the diff; `part`: the
   * person took some hunks of the model's `tool` call, and the model is told which, as editgate's own tools
   * tell it (tools/messages.ts).
   */
  private afterWrite(
    result: CallToolResult,
    pending: PendingWrite,
    settled: Settled,
    part?: { tool: string; allowed: Approval },
  ): CallToolResult {
    // What the checks found in the change is told to the model with the server's answer (secrets masked).
    const found = findingsNote(pending.proposal.findings).trim();
    const taken = part
      ? `editgate proxy: in place of your ${part.tool} call, ${pending.tool} wrote ${pending.path} with the hunks the user accepted.${hunkNote({ approval: part.allowed })}`
      : '';
    const hook = [
      ...(taken ? [{ type: 'text' as const, text: taken }] : []),
      ...(found ? [{ type: 'text' as const, text: `editgate proxy: ${found}` }] : []),
      ...(settled.hookMessage ? [{ type: 'text' as const, text: settled.hookMessage }] : []),
    ];
    if (settled.matches) return { ...result, content: [...result.content, ...hook] };
    if (!settled.changed && result.isError) return result;
    const path = visibleText(pending.path, { oneLine: true });
    let text: string;
    if (!settled.changed) {
      text = `editgate proxy: the server answered without an error, but ${path} is unchanged: it is not the diff that was approved. Tell the user.`;
    } else {
      const shown = capLines(settled.difference ?? '', MAX_DIFFERENCE_LINES, MAX_DIFFERENCE_CHARS);
      const more = shown.omittedLines > 0 ? `\n… ${shown.omittedLines} more lines` : '';
      const undo = settled.undoable
        ? ` The previous content is kept: \`${undoCommand(pending.root, pending.absolute)}\` puts it back.`
        : '';
      text = `editgate proxy: ${path} is not what the user was shown and approved: the server wrote something else.${undo} Tell the user. What was shown (-) against what the file holds (+):\n${shown.text}${more}`;
    }
    this.context.report(
      `${this.context.server} › ${pending.tool}: ${pending.absolute} is not what was approved.${settled.undoable ? ` Run \`${undoCommand(pending.root, pending.absolute)}\` to put back what was there before.` : ''}`,
    );
    return { ...result, content: [...result.content, { type: 'text', text }, ...hook], isError: true };
  }

  private async card(
    call: Call,
    toolClass: Extract<ToolClass, { kind: 'card' }>,
    shown: { note?: string; sessionGrant: boolean },
  ): Promise<CallToolResult> {
    const { tool, args, plans } = call;
    const { writeGate, approvals } = this.context;
    const paths: string[] = [];
    const absolutePaths: string[] = [];
    /** A path outside the roots or under a deny glob, or a policy rule: audited as policy's refusal. */
    const refusedByPolicy = async (error: EditgateError) => {
      await writeGate.auditCall(tool, paths, {
        decision: 'deny',
        decidedBy: 'policy',
        reason: error.message,
      });
      return refusal(tool, error);
    };
    try {
      for (const absolute of (await toolClass.paths?.(args, plans)) ?? []) {
        paths.push(await writeGate.checkPath(absolute));
        absolutePaths.push(absolute);
      }
    } catch (error) {
      if (isEditgateError(error)) return refusedByPolicy(error);
      if (error instanceof UpstreamUnavailable) return refusal(tool, error);
      throw error;
    }
    const hooked: CallWithoutDiff = {
      tool,
      server: this.context.server,
      arguments: args,
      paths,
      absolutePaths,
    };
    // Before-change hooks first, as for a change: they veto before policy, grants or the person.
    try {
      await writeGate.vetoCall(hooked);
    } catch (error) {
      if (isEditgateError(error)) return refusal(tool, error);
      throw error;
    }
    const forward = () => this.forwardCall(call, hooked, absolutePaths);
    try {
      const screened = writeGate.screenCall(tool, paths);
      if (screened === 'allow') {
        await writeGate.auditCall(tool, paths, { decision: 'policy', decidedBy: 'policy' });
        return forward();
      }
    } catch (error) {
      if (isEditgateError(error)) return refusedByPolicy(error);
      throw error;
    }
    if (shown.sessionGrant && this.context.grantedTools.has(tool)) {
      await writeGate.auditCall(tool, paths, { decision: 'session', decidedBy: 'session' });
      return forward();
    }
    const question: CardRequest = {
      server: this.context.server,
      tool,
      ...(call.title ? { title: call.title } : {}),
      arguments: args,
      basis: toolClass.basis,
      ...(shown.note ? { note: shown.note } : {}),
      sessionGrant: shown.sessionGrant,
    };
    // Refused by editgate before anyone decided: audited as editgate's, told to the model as it is.
    const refusedUnasked = async (error: EditgateError) => {
      await writeGate.auditCall(tool, paths, {
        decision: 'deny',
        decidedBy: 'editgate',
        code: error.code,
        reason: error.message,
      });
      return refusal(tool, error);
    };
    // Never a card cut short: a call the person cannot see whole is refused before anyone is asked.
    const tooLong = cardTooLongError(question);
    if (tooLong) return refusedUnasked(tooLong);
    let decision: Awaited<ReturnType<typeof approvals.card>>;
    try {
      decision = await approvals.card(question);
    } catch (error) {
      // No one could be asked (DENIED_NO_APPROVER): refused before anyone decided.
      if (!isEditgateError(error, 'DENIED_NO_APPROVER')) throw error;
      return refusedUnasked(error);
    }
    if (decision === 'once' || (decision === 'tool' && shown.sessionGrant)) {
      if (decision === 'tool') this.context.grantedTools.add(tool);
      await writeGate.auditCall(tool, paths, { decision, decidedBy: 'user' });
      return forward();
    }
    const reason = typeof decision === 'object' ? decision.deny.trim() : '';
    await writeGate.auditCall(tool, paths, {
      decision: 'deny',
      decidedBy: 'user',
      code: 'DENIED_USER',
      ...(reason ? { reason } : {}),
    });
    return textResult(
      reason
        ? `editgate proxy did not run ${tool} (DENIED_USER): ${reason}`
        : `editgate proxy did not run ${tool} (DENIED_USER): the user denied this call. Do not retry it as is; ask the user what they want instead.`,
      true,
    );
  }

  /** A card's call, allowed: forwarded, and once the server carried it out, the after-change hooks. */
  private async forwardCall(
    call: Call,
    hooked: CallWithoutDiff,
    approved: readonly string[],
  ): Promise<CallToolResult> {
    const result = await call.forward(approved, true);
    if (result.isError) return result;
    const said = await this.context.writeGate.afterCall(hooked);
    return said ? { ...result, content: [...result.content, { type: 'text', text: said }] } : result;
  }
}
