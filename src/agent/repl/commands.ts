import { diffLines } from '../../core/diff.js';
import { renderDiff } from '../../terminal/diff-view.js';
import { walkSessionReview } from '../../terminal/session-walk.js';
import type { TurnEvents, TurnOutcome } from '../loop/turn.js';
import { listModels } from '../providers/list-models.js';
import type { ModelTarget } from '../providers/model-target.js';
import type { UserConfig } from '../providers/user-config.js';
import type { ChatSession } from '../session/chat-session.js';
import { listSessions, loadSession } from '../session/session-store.js';
import type { ChatApp } from './chat-app.js';

/**
 * The slash commands, and the turn itself, on the session (loaded in the background while the prompt is
 * already up: the first message waits for it, the person does not wait to start typing).
 */
export const SLASH_HELP: [string, string][] = [
  ['/help', 'this list'],
  ['/exit', 'leave (also Ctrl-D on an empty line, or Ctrl-C twice)'],
  ['/clear', 'start a new conversation (files, grants and undo stay)'],
  ['/model [NAME]', 'list the models the server has, or switch to NAME'],
  [
    '/undo',
    "take back the last turn's changes (edits and commands), newest first; again for the turn before",
  ],
  ['/diff', 'everything this session changed, in the pager'],
  ['/review', "this session's changes hunk by hunk: keep or revert each, with a reason the model reads"],
  ['/grants [revoke PATH|all]', 'what you allowed for the session (a, A), or take it back'],
  ['/usage', 'tokens used, and the cost where known'],
  ['/resume [N|ID]', "this project's saved sessions, or continue one"],
  ['/compact', 'summarise the conversation to free context'],
];

export const KEYS_HELP =
  'Keys: Enter send · Ctrl-J or Alt-Enter new line (or end a line with \\) · ↑/↓ history · Ctrl-C clear, twice to exit · Esc interrupt the model.\nOn a permission card: y yes · a yes to this file for the session · A yes to all edits this session · n no · r no with a reason · v view the whole diff · Esc no, and stop the turn.';

export interface ChatCommandsOptions {
  app: ChatApp;
  session: Promise<ChatSession>;
  userConfig: UserConfig;
  projectDir: string;
  /** Resolves `PROVIDER/MODEL` for /model with another provider. */
  resolveTarget: (spec: string) => ModelTarget;
}

export class ChatCommands {
  constructor(private readonly options: ChatCommandsOptions) {}

  private get app(): ChatApp {
    return this.options.app;
  }

  async turn(
    text: string,
    events: TurnEvents,
    signal: AbortSignal,
    stop: () => boolean,
  ): Promise<TurnOutcome> {
    const session = await this.options.session;
    const outcome = await session.turn(text, events, signal, stop);
    this.app.setUsage(session.usage);
    return outcome;
  }

  async run(line: string, signal: AbortSignal): Promise<void> {
    const [name = '', ...words] = line.trim().split(/\s+/);
    const args = words.join(' ');
    switch (name) {
      case '/help':
        return this.help();
      case '/exit':
      case '/quit':
        this.app.exit(0);
        return;
      case '/clear':
        return this.clear();
      case '/model':
        return this.model(args);
      case '/undo':
        return this.undo();
      case '/diff':
        return this.diff();
      case '/review':
        return this.review();
      case '/grants':
        return this.grants(args);
      case '/usage':
        return this.usage();
      case '/resume':
        return this.resume(args);
      case '/compact':
        return this.compact(signal);
      default:
        this.app.note(`Unknown command ${name}. /help lists the commands.`, 'warning');
    }
  }

  private help(): void {
    const width = Math.max(...SLASH_HELP.map(([name]) => name.length));
    const lines = SLASH_HELP.map(([name, what]) => `${name.padEnd(width)}  ${what}`);
    this.app.note([...lines, '', KEYS_HELP].join('\n'));
  }

  private async clear(): Promise<void> {
    const session = await this.options.session;
    session.clear();
    this.app.note(
      'A new conversation starts here (the model no longer sees what came before; files, grants and /undo stay).',
    );
  }

  private async model(args: string): Promise<void> {
    const session = await this.options.session;
    if (args === '') {
      const models = await listModels(session.target);
      if (models.length === 0) {
        this.app.note(`${session.target.baseURL ?? session.target.provider} lists no models.`);
        return;
      }
      const current = session.target.modelId;
      this.app.note(
        [
          `Models of ${session.target.provider} (/model NAME to switch):`,
          ...models.map((id) => `${id === current ? '● ' : '  '}${id}`),
        ].join('\n'),
      );
      return;
    }
    if (args.includes('/') && !args.startsWith(`${session.target.provider}/`)) {
      const target = this.options.resolveTarget(args);
      session.target = target;
      session.switchModel(target.modelId);
    } else
      session.switchModel(
        args.startsWith(`${session.target.provider}/`)
          ? args.slice(session.target.provider.length + 1)
          : args,
      );
    this.app.setModelLabel(session.target.label);
    this.app.note(`Now talking to ${session.target.label}.`);
  }

  private async undo(): Promise<void> {
    const session = await this.options.session;
    const report = await session.undo();
    if (!report) {
      this.app.note('Nothing to undo: no turn of this session changed a file (or all were undone).');
      return;
    }
    if (report.restored.length > 0)
      this.app.note(`↶ Restored ${report.restored.join(', ')} (newest change first).`);
    for (const problem of report.problems) this.app.note(`Not restored: ${problem}`, 'warning');
  }

  private async review(): Promise<void> {
    const session = await this.options.session;
    const look = this.app.look();
    const { said, warnings } = await session.review((question) =>
      this.app.takeOver(({ output, keys }) =>
        walkSessionReview(question, { output, keys, color: look.level, theme: look.palette.theme }),
      ),
    );
    for (const warning of warnings) this.app.note(`Not reviewable: ${warning}`, 'warning');
    this.app.note(said.join('\n'));
  }

  private async diff(): Promise<void> {
    const session = await this.options.session;
    const changes = await session.sessionChanges();
    if (changes.length === 0) {
      this.app.note('This session has changed no file (or every change was undone).');
      return;
    }
    const look = this.app.look();
    await this.app.page((width) =>
      changes.flatMap((change) => {
        if (change.tooLarge) return [`${change.path}  (changed; too large to diff here)`, ''];
        const kind = change.before === null ? 'create' : change.after === null ? 'delete' : 'modify';
        return [
          ...renderDiff(
            { path: change.path, kind, diff: diffLines(change.before ?? '', change.after ?? '') },
            { width, color: look.level, theme: look.palette.theme },
          ),
          '',
        ];
      }),
    );
  }

  private async grants(args: string): Promise<void> {
    const session = await this.options.session;
    const grants = session.editTools.session;
    const match = /^revoke\s+(.+)$/.exec(args);
    if (match) {
      const what = match[1]!.trim();
      if (what === 'all') grants.reset();
      else if (!grants.revokeFile(what)) {
        this.app.note(`There is no grant for ${what}. /grants lists them.`, 'warning');
        return;
      }
      this.app.note(
        what === 'all'
          ? 'Every grant is revoked: changes are asked about again.'
          : `Revoked: ${what} is asked about again.`,
      );
      return;
    }
    const { allChanges, files, allReads, readFiles } = grants.grants;
    const lines: string[] = [];
    if (allChanges) lines.push('all edits this session (A)');
    for (const file of files) lines.push(`edits to ${file} (a)`);
    if (allReads) lines.push('all reads');
    for (const file of readFiles) lines.push(`reads of ${file}`);
    this.app.note(
      lines.length === 0
        ? 'No grants: every change is asked about (unless a policy rule allows it).'
        : `Allowed without asking:\n${lines.map((line) => `  ${line}`).join('\n')}\n/grants revoke PATH (or all) takes one back.`,
    );
  }

  private async usage(): Promise<void> {
    const session = await this.options.session;
    const { input, output } = session.usage;
    const price = this.options.userConfig.prices[session.target.label];
    const cost = session.target.local
      ? ' · $0 (a local model)'
      : price
        ? ` · about $${((input * price.input + output * price.output) / 1e6).toFixed(4)}`
        : ` · cost unknown (set "prices" for ${session.target.label} in ${this.options.userConfig.path})`;
    this.app.note(`${input} input tokens, ${output} output tokens this session${cost}.`);
  }

  private async resume(args: string): Promise<void> {
    const session = await this.options.session;
    const sessions = (await listSessions(this.options.projectDir)).filter((entry) => entry.id !== session.id);
    if (args === '') {
      if (sessions.length === 0) {
        this.app.note('No other saved session for this project.');
        return;
      }
      this.app.note(
        [
          'Saved sessions (/resume N or /resume ID):',
          ...sessions
            .slice(0, 20)
            .map(
              (entry, i) =>
                `${String(i + 1).padStart(2)}. ${entry.id}  ${entry.model}  ${entry.title.slice(0, 60)}`,
            ),
        ].join('\n'),
      );
      return;
    }
    const picked = /^\d+$/.test(args) ? sessions[Number(args) - 1]?.id : args;
    if (!picked) {
      this.app.note(`There is no session ${args}. /resume lists them.`, 'warning');
      return;
    }
    const loaded = await loadSession(this.options.projectDir, picked);
    session.adopt(loaded);
    this.app.setUsage(session.usage);
    this.app.note(`Resumed session ${loaded.id} (${loaded.messages.length} messages).`);
    const changed = await session.changedSinceSaved();
    if (changed.length > 0)
      this.app.note(
        `Changed since that session: ${changed.join(', ')}. The model will read them again.`,
        'warning',
      );
  }

  private async compact(signal: AbortSignal): Promise<void> {
    const session = await this.options.session;
    const summary = await session.compact(signal);
    this.app.note(`Conversation summarised (${summary.length} characters); the summary replaces it.`);
  }
}
