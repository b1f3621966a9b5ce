import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative as relativePath, resolve } from 'node:path';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import { type ApprovalRequest, type Approver, autoApprover, type Decision } from '../../gate/approval.js';
import type { Screening } from '../../gate/gate.js';
import { type AfterChangeHook, combineAfterChange, type Hooks } from '../../gate/hooks.js';
import type { Proposal } from '../../gate/proposal.js';
import { applySessionReview, openSessionReview, reviewSummary } from '../../gate/session-review.js';
import type { LoadedConfig } from '../../tools/config.js';
import { createEditTools, type EditTools } from '../../tools/index.js';
import { DEFAULT_DENY } from '../../workspace/guard.js';
import { readSession } from '../../workspace/session-log.js';
import { streamModel } from '../loop/model-stream.js';
import { systemPrompt } from '../loop/system-prompt.js';
import { runTurn, type TurnEvents, type TurnOutcome } from '../loop/turn.js';
import { createLanguageModel } from '../providers/language-model.js';
import { type ModelTarget, withModel } from '../providers/model-target.js';
import { describeModelError } from '../providers/provider-errors.js';
import type { AgentTool } from '../tools/agent-tool.js';
import { bashTool, type CommandRequest } from '../tools/bash.js';
import { CommandPolicy } from '../tools/command-policy.js';
import { editKit } from '../tools/edit-kit.js';
import { type FileChange, FileChangeTracker } from '../tools/file-changes.js';
import { globTool } from '../tools/glob.js';
import { grepTool } from '../tools/grep.js';
import { listDirTool } from '../tools/list-dir.js';
import { WorkspaceScope } from '../tools/scope.js';
import { ChangeLog, type UndoReport } from './change-log.js';
import { type LoadedSession, SessionStore } from './session-store.js';

/**
 * One chat: the model, the conversation, the tools over the workspace, and what the turns changed. The
 * front end (the REPL, or -p) supplies how changes are shown and asked about; everything else is here.
 */
export type PreviewReason = 'ask' | 'policy' | 'session' | 'yes' | 'edited' | 'hunks';

export interface SessionFrontEnd {
  /** A file change was computed: its diff is shown whether or not it is asked about. */
  preview(proposal: Proposal, reason: PreviewReason): void | Promise<void>;
  /** Asks about a change (or a read, when policy asks before reads). */
  approve: Approver;
  askCommand(request: CommandRequest): Promise<Decision>;
  /** A command changed files inside the root: each is shown as a diff. */
  commandChanged(changes: FileChange[], command: string): void | Promise<void>;
}

export interface ChatSessionOptions {
  root: string;
  target: ModelTarget;
  projectConfig: LoadedConfig;
  /** Where undo history lives (outside the workspace). */
  stateDir: string;
  /** Approve every change and command without asking (each diff still shown). */
  yes: boolean;
  frontEnd: SessionFrontEnd;
  /** Who answers questions about changes instead of the front end alone (--approve web: the page too). */
  approve?: Approver;
  store?: SessionStore;
  /** Tests: force the JavaScript grep. */
  ripgrep?: boolean;
}

/** A file's content at the start of the session (null: it did not exist; undefined: too large to keep). */
type Original = string | null | undefined;

export class ChatSession {
  readonly root: string;
  target: ModelTarget;
  messages: ModelMessage[];
  summary: string | undefined;
  readonly usage = { input: 0, output: 0 };
  readonly tools: AgentTool[];
  readonly editTools: EditTools;
  readonly changes = new ChangeLog();
  private model: LanguageModelV3 | undefined;
  private readonly originals = new Map<string, Original>();
  private readonly touched = new Set<string>();
  private readonly warnings = new Set<string>();
  private readonly tracker: FileChangeTracker;
  /** Told to the model with the next message (e.g. files /undo put back). */
  private notes: string[] = [];
  private store: SessionStore | undefined;
  private savedFiles: Record<string, string | null>;
  /** /undo is stepping back: its undos are not changes a turn made. */
  private undoingTurn = false;

  private constructor(
    private readonly options: ChatSessionOptions,
    scope: WorkspaceScope,
  ) {
    this.root = scope.root;
    this.target = options.target;
    this.store = options.store;
    this.savedFiles = {};
    this.messages = [];
    const config = options.projectConfig.options;
    const frontEnd = options.frontEnd;
    const record: AfterChangeHook = (outcome) => {
      // A command's changes are logged where the command ran (with whether /undo can put them back); /undo's
      // own steps back are not changes of a turn.
      const isTurnChange = outcome.tool !== 'bash' && !this.undoingTurn;
      if (isTurnChange && outcome.tool === 'undo_edit') this.changes.forgetLatestChange(outcome.absolutePath);
      else if (isTurnChange)
        this.changes.record({
          kind: 'tool',
          absolute: outcome.absolutePath,
          relative: outcome.path,
          tool: outcome.tool,
        });
      this.touched.add(outcome.path);
      this.tracker.forget(outcome.path);
    };
    const hooks: Hooks = {
      ...config.hooks,
      afterChange: combineAfterChange([
        record,
        ...(config.hooks?.afterChange ? [config.hooks.afterChange] : []),
      ]),
    };
    this.editTools = createEditTools({
      ...config,
      root: scope.root,
      // A change rule that asks is not answered by --yes: the person at the chat's card is.
      approve: options.yes
        ? autoApprover('--yes', { person: options.approve ?? frontEnd.approve })
        : (options.approve ?? frontEnd.approve),
      hooks,
      stateDir: config.stateDir ?? options.stateDir,
      // The chat session is the session its changes are logged under, for /review and editgate review --session.
      sessionLog: {
        face: 'chat',
        label: 'editgate chat',
        ...(options.store ? { id: options.store.id } : {}),
      },
      onPreview: async (proposal: Proposal, screening: Screening) => {
        for (const file of proposal.files) {
          if (this.originals.has(file.path)) continue;
          this.originals.set(
            file.path,
            // A streamed huge file has no texts in memory: it is not kept for /diff.
            file.texts ? (file.kind === 'create' ? null : file.texts.before) : undefined,
          );
        }
        // After the person approved their own version, or some hunks, the gate shows what is written.
        const reason: PreviewReason = screening.ask
          ? options.yes && !screening.askedBy
            ? 'yes'
            : 'ask'
          : screening.approvedBy === 'user'
            ? 'hunks' in screening
              ? 'hunks'
              : 'edited'
            : screening.approvedBy;
        await frontEnd.preview(proposal, reason);
      },
    });
    this.tracker = new FileChangeTracker(scope);
    const policy = new CommandPolicy(config.policy?.rules ?? []);
    this.tools = [
      ...editKit(this.editTools),
      listDirTool(scope),
      globTool(scope),
      grepTool(scope, options.ripgrep === false ? { ripgrep: false } : {}),
      bashTool({
        root: scope.root,
        policy,
        yes: options.yes,
        ask: (request) => frontEnd.askCommand(request),
        tracker: this.tracker,
        onChanges: async (changes, command) => {
          for (const change of changes) {
            await this.settleCommandChange(change, command);
            this.touched.add(change.relative);
            if (!this.originals.has(change.relative)) {
              this.originals.set(
                change.relative,
                change.before === null ? null : change.before?.toString('utf8'),
              );
            }
          }
          await frontEnd.commandChanged(changes, command);
        },
      }),
    ];
  }

  static async open(options: ChatSessionOptions): Promise<ChatSession> {
    const deny = options.projectConfig.options.deny ?? DEFAULT_DENY;
    return new ChatSession(options, await WorkspaceScope.create(options.root, deny));
  }

  get id(): string | undefined {
    return this.store?.id;
  }

  get system(): string {
    const base = systemPrompt(this.root);
    return this.summary ? `${base}\n\nSummary of the conversation before this point:\n${this.summary}` : base;
  }

  /** The files this session read or changed that differ now from when it was saved (for --resume). */
  async changedSinceSaved(): Promise<string[]> {
    const changed: string[] = [];
    for (const [path, hash] of Object.entries(this.savedFiles)) {
      if ((await this.hashOf(path)) !== hash) changed.push(path);
    }
    return changed.sort();
  }

  /** One turn: the person's text, then the model's work until it answers. */
  async turn(
    text: string,
    events: TurnEvents,
    signal: AbortSignal,
    stopRequested: () => boolean,
  ): Promise<TurnOutcome> {
    this.model ??= await createLanguageModel(this.target);
    // What a session review (/review here, or editgate review --session elsewhere) left for the model.
    const reviewed = await (await this.editTools.gate()).sessionLog?.takeNote().catch(() => undefined);
    if (reviewed) this.notes.push(reviewed);
    const content = this.notes.length > 0 ? `${this.notes.join('\n')}\n\n${text}` : text;
    this.notes = [];
    const user: ModelMessage = { role: 'user', content };
    this.messages.push(user);
    void this.store?.append({ t: 'message', message: user });
    this.changes.beginTurn();
    const outcome = await runTurn({
      model: this.model,
      target: this.target,
      system: this.system,
      tools: this.tools,
      messages: this.messages,
      signal,
      stopRequested,
      warnings: this.warnings,
      events: {
        ...events,
        toolStarted: (call) => {
          // The files the call names, as its tool describes them (a patch: every file, a move's both names).
          for (const path of call.tool?.paths?.(call.input) ?? []) {
            const inside = this.relative(path);
            if (inside) this.touched.add(inside);
          }
          events.toolStarted(call);
        },
        usage: (usage) => {
          this.usage.input += usage.inputTokens ?? 0;
          this.usage.output += usage.outputTokens ?? 0;
          void this.store?.append({
            t: 'usage',
            input: usage.inputTokens ?? 0,
            output: usage.outputTokens ?? 0,
          });
          events.usage(usage);
        },
        message: (message) => {
          void this.store?.append({ t: 'message', message });
          events.message(message);
        },
      },
    });
    await this.saveFiles();
    return outcome;
  }

  /**
   * A file a command changed, settled by the gate as every write editgate did not make (gate/settle.ts):
   * its old bytes into history (so /undo and `editgate undo` put them back through the gate), the audit
   * line, the after-change hooks. Logged for /undo, with why it cannot be undone when it cannot.
   */
  private async settleCommandChange(change: FileChange, command: string): Promise<void> {
    const gate = await this.editTools.gate();
    const logged = {
      kind: 'command',
      command,
      absolute: change.absolute,
      relative: change.relative,
    } as const;
    try {
      const settled = await gate.settle({
        tool: 'bash',
        writer: `a command: ${command.length > 200 ? `${command.slice(0, 200)}…` : command}`,
        path: change.absolute,
        before: change.before,
      });
      if (!settled.changed) return;
      if (settled.undoable) this.changes.record(logged);
      else
        this.changes.record({
          ...logged,
          cannotUndo: 'too large to have been kept before the command; restore it from version control.',
        });
    } catch (error) {
      // The guard refused the path as it is now (a folder on the way became a link out of the root, say):
      // nothing is recorded, and /undo writes nothing there.
      this.changes.record({
        ...logged,
        cannotUndo: `not put back: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }

  /** /undo: every change of the newest turn that has changes, newest first. */
  async undo(): Promise<UndoReport | undefined> {
    const gate = await this.editTools.gate();
    // The person typed /undo: the undo is theirs, so it is written without a question, through the gate
    // (guard, stale check, atomic write, history stepping back, audit, hooks) like any change; a command's
    // change is in history as a tool's is (settleCommandChange).
    const undoThroughGate = async (change: { relative: string }) => {
      const proposal = await gate.propose({
        tool: 'undo_edit',
        path: change.relative,
        input: { file_path: change.relative },
        requireRead: false,
        prepare: (workspace, resolved, options) => workspace.undo(resolved, options),
      });
      if (proposal.files[0]!.kind === 'noop') return;
      try {
        await gate.commit(proposal, { decision: 'once', decidedBy: 'user' });
      } catch (error) {
        await gate.discard(proposal);
        throw error;
      }
    };
    this.undoingTurn = true;
    const report = await this.changes
      .undoLastTurn(undoThroughGate, (change) => {
        gate.workspace.ledger.forget(change.absolute);
        if (change.kind === 'command') this.tracker.forget(change.relative);
      })
      .finally(() => {
        this.undoingTurn = false;
      });
    if (report && report.restored.length > 0) {
      this.notes.push(
        `(The user undid your changes to ${[...new Set(report.restored)].join(', ')}: read them again before editing them.)`,
      );
    }
    return report;
  }

  /**
   * /review: this session's changes as one change set (gate/session-review.ts), decided by `decide` (the
   * terminal walk); the reverts go through the gate, and what was reverted and why reaches the model with the
   * next message. A sentence when there is nothing to review.
   */
  async review(
    decide: (question: ApprovalRequest) => Promise<Decision | undefined>,
  ): Promise<{ said: string[]; warnings: string[] }> {
    const gate = await this.editTools.gate();
    const log = gate.sessionLog;
    if (!log)
      return {
        said: ['This chat keeps no state folder, so its changes were not logged for review.'],
        warnings: [],
      };
    const logged = await readSession(log.stateDir, log.id);
    if (!logged) return { said: ['This session has changed no file yet.'], warnings: [] };
    const review = await openSessionReview(logged);
    const warnings = review.unreviewable.map((file) => `${file.path}: ${file.why}.`);
    if (!review.question)
      return { said: ['Nothing to review: every change of this session was undone or reverted.'], warnings };
    const decision = await decide(review.question);
    if (decision === undefined) return { said: ['Nothing was reverted.'], warnings };
    const outcome = await applySessionReview(gate, review, decision);
    const said = reviewSummary(outcome);
    if (outcome.note) said.push('The model reads what was reverted, and why, with your next message.');
    return { said, warnings };
  }

  /** /diff: every file this session changed, from its content when first changed to now. */
  async sessionChanges(): Promise<
    { path: string; before: string | null; after: string | null; tooLarge: boolean }[]
  > {
    const result: { path: string; before: string | null; after: string | null; tooLarge: boolean }[] = [];
    for (const [path, original] of [...this.originals].sort(([a], [b]) => a.localeCompare(b))) {
      const after = await readFile(resolve(this.root, path), 'utf8').catch(() => null);
      if (original === undefined) {
        result.push({ path, before: null, after: null, tooLarge: true });
        continue;
      }
      if (original === after) continue;
      result.push({ path, before: original, after, tooLarge: false });
    }
    return result;
  }

  /** /resume ID: continue a saved session here (its messages, summary and token counts; later records go to its file). */
  adopt(loaded: LoadedSession): void {
    this.messages = [...loaded.messages];
    this.summary = loaded.summary;
    this.usage.input = loaded.usage.input;
    this.usage.output = loaded.usage.output;
    this.savedFiles = loaded.files;
    for (const path of Object.keys(loaded.files)) this.touched.add(path);
    if (this.store)
      this.store = SessionStore.continuing(this.store.folder, loaded.id, {
        root: this.root,
        model: this.target.label,
      });
    this.notes.push(
      '(This conversation was resumed from a saved session: files may have changed since; read them again before editing.)',
    );
  }

  /** Waits until everything said has been saved. */
  async settle(): Promise<void> {
    await this.store?.settle().catch(() => {});
  }

  /** /model NAME: the same provider with another model. */
  switchModel(modelId: string): void {
    this.target = withModel(this.target, modelId);
    this.model = undefined;
    void this.store?.append({ t: 'model', model: this.target.label });
  }

  /** /clear: a fresh conversation (files, grants and undo stay). */
  clear(): void {
    this.messages = [];
    this.summary = undefined;
    void this.store?.append({ t: 'compact', summary: '' });
  }

  /** /compact: the model summarises the conversation, which then replaces it. */
  async compact(signal: AbortSignal): Promise<string> {
    if (this.messages.length === 0) throw new Error('There is nothing to compact yet.');
    this.model ??= await createLanguageModel(this.target);
    let summary = '';
    try {
      const request: ModelMessage = {
        role: 'user',
        content:
          'Summarise this conversation so far for yourself, to continue the work without it: the task, decisions made, files read and changed (with paths), what is done and what is left. Be concise and specific. Reply with the summary only.',
      };
      for await (const event of streamModel({
        model: this.model,
        system: this.system,
        messages: [...this.messages, request],
        tools: [],
        signal,
        retries: this.target.local ? 0 : 2,
      })) {
        if (event.type === 'text') summary += event.text;
      }
      summary = summary.trim();
    } catch (error) {
      throw new Error(describeModelError(error, this.target));
    }
    if (!summary) throw new Error('The model gave an empty summary; the conversation is unchanged.');
    this.summary = this.summary ? `${this.summary}\n\n${summary}` : summary;
    this.messages = [];
    void this.store?.append({ t: 'compact', summary: this.summary });
    return summary;
  }

  /** The relative path of `path` inside the root, or undefined. */
  private relative(path: string): string | undefined {
    const absolute = isAbsolute(path) ? path : resolve(this.root, path);
    const inside = relativePath(this.root, absolute);
    return inside && !inside.startsWith('..') && !isAbsolute(inside)
      ? inside.split('\\').join('/')
      : undefined;
  }

  private async hashOf(path: string): Promise<string | null> {
    try {
      return createHash('sha256')
        .update(await readFile(resolve(this.root, path)))
        .digest('hex');
    } catch {
      return null;
    }
  }

  private async saveFiles(): Promise<void> {
    if (!this.store || this.touched.size === 0) return;
    const files: Record<string, string | null> = {};
    for (const path of this.touched) files[path] = await this.hashOf(path);
    await this.store.append({ t: 'files', files });
  }
}
