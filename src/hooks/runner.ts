/**
 * One hook call, whatever the agent: the event read by the agent's adapter, then the gate as for every change
 * editgate makes (config trust, deny globs, policy, before-change hooks, the approval, the audit line), then
 * the answer worded by the adapter. The agent starts one process per event:
 *
 *   pre-tool    the tool's change worked out with its own semantics (the adapter's ProposedFiles), proposed
 *               through the gate as a whole write someone else makes (gate/whole-write.ts), decided by the
 *               mode's approver, never committed by editgate; what was allowed is kept in the state folder
 *               (pending.ts) for the post-tool process
 *   post-tool   `gate.settle` for each file against what was kept: history (so `editgate undo` restores),
 *               the audit line naming the agent and who decided, the after-change hooks; the model is told
 *               when the bytes on disk are not the approved ones. A call the pre-tool hook never allowed is
 *               settled as unreviewed, never as approved.
 *
 * Modes (`--approve`): `policy` (rules only: what they do not allow is refused), `agent` (what the rules do
 * not decide goes back to the agent as "ask", with editgate's summary, so the agent's own prompt asks the
 * person), `web` (the review page of an `editgate review` running for the root, or one the CLI starts and
 * opens; none: refused; a time-out names the page's address). Whatever
 * goes wrong (a crash, the page unreachable, no answer before the agent's hook time-out) is a denial saying
 * why, in the way the agent stops the tool (fail closed), unless the hook runs with `failOpen`.
 */
import { relative, sep } from 'node:path';
import { EditgateError, isEditgateError } from '../core/errors.js';
import { askedByLine, findingLine, findingsLines, findingsNote } from '../core/finding-words.js';
import type { Finding } from '../core/findings.js';
import { shellWord } from '../core/shell-word.js';
import { encodeText } from '../core/text.js';
import type { Approver } from '../gate/approval.js';
import type { Allowed, Approval, Gate, Settled } from '../gate/gate.js';
import { noApproverError } from '../gate/no-approver.js';
import { openGate } from '../gate/open-gate.js';
import type { Proposal } from '../gate/proposal.js';
import { prepareWholeDelete, prepareWholeWrite, type WholeWrite } from '../gate/whole-write.js';
import { type LoadedConfig, loadConfig } from '../tools/config.js';
import { type KeptFile, keepApproval, takeKeptApproval } from '../tools/kept-approval.js';
import { defaultStateDir, stateDirFor } from '../tools/state-dir.js';
import type {
  AgentId,
  CallKey,
  HookAdapter,
  HookReply,
  PostFeedback,
  PostToolRead,
  PreToolRead,
  PreVerdict,
  ProposedFile,
  RevisedFile,
} from './adapter.js';

export const APPROVE_MODES = ['web', 'agent', 'policy'] as const;
export type HookApproveMode = (typeof APPROVE_MODES)[number];

export interface HookRunOptions {
  adapter: HookAdapter;
  approve: HookApproveMode;
  /** The workspace root; default the folder the agent runs in (the event's cwd). */
  root?: string;
  /** A config file instead of ROOT/editgate.config.json. */
  config?: string;
  /** Let the tool run when the hook itself fails (a crash, a time-out, no page): off unless asked for. */
  failOpen?: boolean;
  /**
   * The review page of an `editgate review` running for the root (web mode), or one started for it;
   * undefined when none answers. The CLI gives it (the web layer is not this layer's to import). `shown`
   * hears the page's address, which a refusal for want of an answer in time names.
   */
  reviewPage?: (root: string, shown?: (address: string) => void) => Promise<Approver | undefined>;
  /** Milliseconds the whole call may take; default: the adapter's time-out less a margin for start-up. */
  budgetMs?: number;
  /** The user's state folder (default: defaultStateDir()). */
  stateDir?: string;
  /** Notes for the person (the hook's standard error). */
  warn?: (line: string) => void;
}

/** The hook could not do its work (no page to ask): said as it is, without "the hook failed". */
class HookFailed extends Error {}

/** Time kept back from the agent's time-out for Node's start and exit around the hook's own work. */
const MARGIN_MS = 3000;

/** The hook's answer to one event (stdin's text): never throws, never runs past its budget. */
export async function runHook(stdin: string, options: HookRunOptions): Promise<HookReply> {
  const { adapter } = options;
  const budget = options.budgetMs ?? Math.max(1000, adapter.timeoutSeconds * 1000 - MARGIN_MS);
  const timer = new AbortController();
  let timeout: NodeJS.Timeout | undefined;
  // The page the change waits on, once known: a refusal for want of an answer says where it is.
  let page: { root: string; address: string } | undefined;
  const { reviewPage } = options;
  const call: HookRunOptions = reviewPage
    ? {
        ...options,
        reviewPage: (root, shown) =>
          reviewPage(root, (address) => {
            page = { root, address };
            shown?.(address);
          }),
      }
    : options;
  const expired = new Promise<HookReply>((resolve) => {
    timeout = setTimeout(() => {
      timer.abort();
      const where = page
        ? `; the change waited on the review page at ${page.address} (for a sign-in link: editgate review ${shellWord(page.root)} --link). Tell the user to open it, then ask again`
        : '';
      resolve(
        failure(
          options,
          `no decision within ${Math.round(budget / 1000)} s (${adapter.label} stops waiting for the hook after ${adapter.timeoutSeconds} s)${where}`,
        ),
      );
    }, budget);
  });
  try {
    return await Promise.race([answer(stdin, call, timer.signal), expired]);
  } catch (error) {
    if (error instanceof HookFailed) return failure(options, error.message);
    return failure(options, `the hook failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearTimeout(timeout);
  }
}

/** The hook could not decide: the tool is stopped (said why), or let through when failing open. */
function failure(options: HookRunOptions, why: string): HookReply {
  if (!options.failOpen)
    return options.adapter.failed(`editgate refused this call: ${why}. Nothing was written.`);
  options.warn?.(`editgate: ${why}; the call goes ahead unchecked (the hook fails open).`);
  return options.adapter.pre({ kind: 'pass' });
}

async function answer(stdin: string, options: HookRunOptions, signal: AbortSignal): Promise<HookReply> {
  let event: unknown;
  try {
    event = JSON.parse(stdin);
  } catch {
    throw new Error(`${options.adapter.label} sent a hook event that is not JSON`);
  }
  const read = options.adapter.parse(event);
  if (read.phase === 'other') return { stdout: '', exitCode: 0 };
  const root = options.root ?? read.cwd;
  if (read.phase === 'pre') return options.adapter.pre(await preTool(read.read, root, options, signal));
  return options.adapter.post(await postTool(read.read, root, options));
}

/** The root's config (as trusted: an untrusted one only tightens) and the state folder it names. */
async function configFor(
  root: string,
  options: HookRunOptions,
): Promise<{ config: LoadedConfig; stateDir: string }> {
  const userStateDir = options.stateDir ?? defaultStateDir();
  const config = await loadConfig(root, options.config, { stateDir: userStateDir });
  if (config.trust?.notice) options.warn?.(config.trust.notice);
  return { config, stateDir: stateDirFor([root], userStateDir, config.options.stateDir) };
}

async function gateFor(
  root: string,
  config: LoadedConfig,
  stateDir: string,
  approve: Approver,
  session: { agent: HookAdapter; key: CallKey },
): Promise<Gate> {
  return openGate({
    // Configured language servers' diagnostics (#32 item 4), as for editgate's own tools; a running hook
    // server keeps them warm between calls.
    languageServers: config.options.languageServers,
    languageServerBudgetMs: config.options.languageServerBudgetMs,
    // One review session per agent conversation (`editgate review --session`), whichever hook process wrote.
    sessionLog: {
      id: `${session.agent.agent}-${session.key.session}`,
      face: 'hook',
      label: session.agent.label,
    },
    roots: [root],
    deny: config.options.deny,
    stateDir,
    readOnlyTools: ['read_file'],
    approve,
    policy: config.options.policy,
    hooks: config.options.hooks,
    requireReadBeforeEdit: false,
    auditLog: config.options.auditLog,
  });
}

/** Who answers when the rules ask, in each mode. */
function approverFor(root: string, options: HookRunOptions): Approver {
  if (options.approve === 'web') {
    return async (request, ask) => {
      let page: Approver | undefined;
      try {
        page = await options.reviewPage?.(root);
        if (page) return await page(request, ask);
      } catch (error) {
        if (ask?.signal?.aborted) throw error;
        // A page that cannot be reached has not said no: the hook failed (closed, or open when asked to).
        throw noApproverError(
          request,
          `the review page could not be reached (${error instanceof Error ? error.message : String(error)})`,
          `Tell the user: check that \`editgate review ${shellWord(root)}\` is running, then ask again.`,
        );
      }
      throw noApproverError(
        request,
        `no editgate review page is running for ${root}`,
        `Tell the user: start \`editgate review ${shellWord(root)}\` (it prints the page's link), then ask again.`,
      );
    };
  }
  // policy: rules only. (agent never reaches here: what the rules leave open goes back to the agent.)
  return (request) => {
    throw noApproverError(
      request,
      `${options.adapter.label}'s editgate hook runs with --approve policy: only policy rules decide`,
      `To let it through, the user can add a policy rule that allows it to editgate.config.json (and trust the file with \`editgate trust\`), or install the hook with --approve agent or --approve web (editgate hooks install ${options.adapter.agent}).`,
    );
  };
}

async function preTool(
  read: PreToolRead,
  root: string,
  options: HookRunOptions,
  signal: AbortSignal,
): Promise<PreVerdict> {
  if (read.kind === 'pass') return { kind: 'pass' };
  if (read.kind === 'refuse') return { kind: 'deny', reason: read.reason };
  const { adapter } = options;
  const { config, stateDir } = await configFor(root, options);
  const gate = await gateFor(root, config, stateDir, approverFor(root, options), {
    agent: adapter,
    key: read.key,
  });
  const found: WholeWrite[] = [];
  const writer = `${adapter.label}'s ${read.tool}`;
  const prepares = read.files.map((file) => {
    const whole: WholeWrite = { before: null, expected: null, notes: [] };
    found.push(whole);
    return {
      path: file.path,
      requireRead: false,
      prepare:
        'delete' in file
          ? movedAway(prepareWholeDelete(whole), file.path, read.files, root)
          : 'movedFrom' in file
            ? prepareMove(file, read.files, found, whole, writer)
            : prepareWholeWrite(file.expected, whole, writer),
    };
  });
  let proposal: Proposal;
  try {
    proposal = await gate.propose({
      tool: read.tool,
      input: read.input,
      signal,
      ...prepares[0]!,
      more: prepares.slice(1),
    });
  } catch (error) {
    // The tool would fail on the file as it is (its old text missing, a path outside the root...): the
    // model reads why, as from editgate's own tools.
    if (isEditgateError(error)) return { kind: 'deny', reason: error.message };
    throw error;
  }
  // editgate never commits it: the agent's tool writes.
  await gate.discard(proposal);
  if (proposal.files.every((file) => file.change.kind === 'noop')) return { kind: 'pass' };
  let approval: Approval;
  try {
    if (options.approve === 'agent') {
      const screened = await gate.screen(proposal);
      if (screened === 'ask') {
        // The agent's own prompt shows the person the summary; the model hears the findings after the tool.
        await keep(
          adapter.agent,
          stateDir,
          read,
          proposal,
          found,
          { decision: 'once', decidedBy: 'user', reason: `asked in ${adapter.label}` },
          findingsNote(proposal.findings).trim(),
        );
        return { kind: 'ask', reason: summary(proposal, adapter.label) };
      }
      approval = screened;
    } else {
      approval = await gate.decide(proposal, signal);
    }
  } catch (error) {
    // No page to ask (web): the hook could not do its work, which fails closed, or open when asked to.
    if (isEditgateError(error, 'DENIED_NO_APPROVER') && options.approve === 'web')
      throw new HookFailed(withFindings(error.message, proposal.findings));
    if (isEditgateError(error) && error.code !== 'CANCELLED')
      return { kind: 'deny', reason: withFindings(error.message, proposal.findings) };
    throw error;
  }
  const revised = approval.edited?.proposal ?? approval.hunks?.proposal;
  let updatedInput: Record<string, unknown> | undefined;
  let context: string | undefined;
  if (revised) {
    const files = revisedFiles(proposal, revised);
    const carried = adapter.revise?.(read.input, files) ?? {
      refuse: `${adapter.label} has no way to take a changed input`,
    };
    if ('refuse' in carried) {
      return {
        kind: 'deny',
        reason: `The user approved their own version of this change, which ${adapter.label}'s ${read.tool} cannot carry (${carried.refuse}), so nothing was written. Write exactly this instead:\n${personsVersion(files)}`,
      };
    }
    updatedInput = carried;
    context = `The user changed this ${read.tool} before approving it; what is written is their version:\n${revised.unifiedDiff}`;
    // What is kept for settle is the person's bytes, not the tool's.
    for (const [index, file] of revised.files.entries()) {
      const content = file.change.content;
      if (content?.type === 'text' && found[index])
        found[index]!.expected = encodeText(content.text, content.codec);
    }
  }
  // What the model is told with the allowed call: the person's change, and what the checks found.
  const told = [context, findingsNote(proposal.findings).trim()].filter(Boolean).join('\n');
  await keep(adapter.agent, stateDir, read, proposal, found, approval, adapter.contextBeforeTool ? '' : told);
  return {
    kind: 'allow',
    reason: allowedBecause(approval, proposal.findings),
    ...(updatedInput ? { updatedInput } : {}),
    ...(told && adapter.contextBeforeTool ? { context: told } : {}),
  };
}

/**
 * A refusal's words with what the checks found that they do not already say (a rule's refusal names the
 * findings that refused; the others, and every finding for a path rule's refusal, are added).
 */
function withFindings(message: string, findings: readonly Finding[] | undefined): string {
  return `${message}${findingsNote((findings ?? []).filter((finding) => !message.includes(findingLine(finding))))}`;
}

/** A deletion that is the old path of a move in the same call: the change says where to (change rules' `moved`). */
function movedAway(
  remove: ReturnType<typeof prepareWholeDelete>,
  path: string,
  files: readonly ProposedFile[],
  root: string,
): ReturnType<typeof prepareWholeDelete> {
  const to = files.find((other) => 'movedFrom' in other && other.movedFrom === path);
  if (!to) return remove;
  return async (workspace, resolved, options) => {
    const change = await remove(workspace, resolved, options);
    change.movedTo = relative(root, to.path).split(sep).join('/');
    return change;
  };
}

/**
 * The new path of a move, from the bytes the gate read for the file moved (its deletion, prepared earlier
 * in the same change set); what was at the new path is replaced, which the question says.
 */
function prepareMove(
  file: Extract<ProposedFile, { movedFrom: string }>,
  files: readonly ProposedFile[],
  found: readonly WholeWrite[],
  whole: WholeWrite,
  writer: string,
): ReturnType<typeof prepareWholeWrite> {
  const source = found[files.findIndex((other) => other.path === file.movedFrom && 'delete' in other)];
  const write = prepareWholeWrite(
    () => {
      if (!source?.before)
        throw new EditgateError(
          'INVALID_INPUT',
          `editgate cannot follow the move of ${file.movedFrom}: it holds no bytes editgate could read whole. Nothing was written.`,
          { path: file.movedFrom },
        );
      return file.moved(source.before);
    },
    whole,
    writer,
  );
  return async (workspace, resolved, options) => {
    const change = await write(workspace, resolved, options);
    if (change.kind !== 'create')
      change.note = `${change.display} already exists: the moved ${file.movedFrom} replaces it, and what it holds now is lost (the removed lines) unless the change is undone.`;
    return change;
  };
}

function keep(
  agent: AgentId,
  stateDir: string,
  read: Extract<PreToolRead, { kind: 'write' }>,
  proposal: Proposal,
  found: WholeWrite[],
  allowed: Allowed,
  /** For the model with the post-tool answer ('' for nothing). */
  note: string,
): Promise<void> {
  const files: KeptFile[] = proposal.files.map((file, index) => ({
    path: file.change.resolved.absolute,
    before: found[index]?.before ?? null,
    approved: found[index]?.expected ?? null,
  }));
  return keepApproval(stateDir, {
    agent,
    tool: read.tool,
    key: read.key,
    files,
    allowed: {
      decision: allowed.decision,
      decidedBy: allowed.decidedBy,
      ...(allowed.rule ? { rule: allowed.rule } : {}),
      ...(allowed.reason ? { reason: allowed.reason } : {}),
    },
    ...(note ? { note } : {}),
    at: Date.now(),
  });
}

/** Why the call may run, for the person where the agent shows it (with what the checks found). */
function allowedBecause(approval: Approval, findings: readonly Finding[] | undefined): string {
  const why =
    approval.decidedBy === 'policy'
      ? 'editgate: allowed by a policy rule'
      : approval.decidedBy === 'user'
        ? 'editgate: approved by the user'
        : `editgate: allowed (${approval.decidedBy})`;
  const found = findingsLines(findings);
  return found.length === 0 ? why : `${why}\n${found.join('\n')}`;
}

/**
 * What editgate found, for the agent's own question (mode agent): the change, why it is asked (no rule
 * decides it, or a rule or check insists on a person), and each finding. No secret's value: findings hold none.
 */
function summary(proposal: Proposal, label: string): string {
  const files = proposal.files.map(
    (file) => `${file.path} (+${file.change.diff.added} -${file.change.diff.removed})`,
  );
  const why = askedByLine(proposal.findings)
    ? `editgate asks about this change to ${files.join(', ')}; ${label} asks you.`
    : `editgate: no policy rule decides this change to ${files.join(', ')}; ${label} asks you.`;
  return [why, ...findingsLines(proposal.findings)].join('\n');
}

function revisedFiles(proposal: Proposal, revised: Proposal): RevisedFile[] {
  return revised.files.map((file, index) => ({
    path: file.change.resolved.absolute,
    before: file.change.texts?.before ?? '',
    proposed: proposal.files[index]?.change.texts?.after ?? '',
    approved: file.change.texts?.after ?? '',
  }));
}

function personsVersion(files: RevisedFile[]): string {
  return files.map((file) => `--- ${file.path} (the user's version, whole)\n${file.approved}`).join('\n');
}

async function postTool(read: PostToolRead, root: string, options: HookRunOptions): Promise<PostFeedback> {
  if (read.kind === 'pass') return { matches: true };
  const { adapter } = options;
  const { config, stateDir } = await configFor(root, options);
  const gate = await gateFor(root, config, stateDir, approverFor(root, options), {
    agent: adapter,
    key: read.key,
  });
  const pending = await takeKeptApproval(stateDir, adapter.agent, read.key);
  const settled: Settled[] = [];
  if (pending) {
    for (const file of pending.files) {
      settled.push(
        await gate.settle({
          tool: read.tool,
          writer: adapter.label,
          path: file.path,
          before: file.before,
          approved: { bytes: file.approved, by: pending.allowed },
        }),
      );
    }
  } else {
    for (const path of read.paths) {
      settled.push(await gate.settle({ tool: read.tool, writer: adapter.label, path, before: undefined }));
    }
  }
  const differs = settled.filter((file) => file.matches === false);
  // What the pre-tool answer could not tell the model (kept with the approval) comes first.
  const told = pending?.note ? [pending.note] : [];
  if (differs.length === 0) {
    const said = [...told, ...settled.map((file) => file.hookMessage).filter(Boolean)];
    return { matches: true, ...(said.length > 0 ? { message: said.join('\n') } : {}) };
  }
  return {
    matches: false,
    message: [
      ...told,
      ...differs.map(
        (file) =>
          `editgate: ${file.path} is not what was approved (${adapter.label}'s ${read.tool} wrote other bytes). The user has been told; \`editgate undo ${file.path}\` puts back what was there before. The difference, approved to written:\n${file.difference ?? ''}`,
      ),
    ].join('\n'),
  };
}
