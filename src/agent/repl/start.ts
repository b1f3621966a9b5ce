import { realpathSync } from 'node:fs';
import { isEditgateError } from '../../core/errors.js';
import type { Approver } from '../../gate/approval.js';
import { firstAnswer } from '../../gate/first-answer.js';
import type { ThemeOption } from '../../terminal/palette.js';
import type { TerminalInput, TerminalOutput } from '../../terminal/tty-modes.js';
import type { LoadedConfig } from '../../tools/config.js';
import { type ModelChoice, type ModelTarget, resolveModelTarget } from '../providers/model-target.js';
import type { UserConfig } from '../providers/user-config.js';
import type { ChatSession, SessionFrontEnd } from '../session/chat-session.js';
import {
  appendInputHistory,
  listSessions,
  loadInputHistory,
  loadSession,
  projectStateDir,
  SessionStore,
} from '../session/session-store.js';
import { noteLines } from '../ui/transcript.js';

/**
 * Starting a chat. The input prompt comes first: everything it needs is small (this module, the screen,
 * the editor). The session (editgate's tools, the project config, the AI SDK and the provider) is loaded
 * right after, in the background, while the person types; the first message waits for it if it must.
 */
export interface ChatStart {
  root: string;
  target: ModelTarget;
  choice: ModelChoice;
  userConfig: UserConfig;
  /** The project config file instead of ROOT/editgate.config.json. */
  configPath?: string;
  stateDir: string;
  yes: boolean;
  noColor: boolean;
  theme: ThemeOption;
  /** --continue: the newest session; --resume ID (or '' to list them). */
  resume?: { id: string | 'latest' | '' };
  /** --approve: 'web' asks about changes on the review page too; default: the project config's "approve". */
  approve?: 'terminal' | 'web';
  /** Opens the web review page; given by the CLI, since the agent does not import the web layer. */
  openReviewPage?: () => Promise<ReviewPage>;
}

/** The web review page, as the chat uses it (`--approve web`). */
export interface ReviewPage {
  /** Asks the page; its signal takes the question back (answered in the terminal, or cancelled). */
  ask: Approver;
  /** The line that tells the person where the page is (with its link). */
  announcement: string;
  close(): Promise<void>;
}

/**
 * Who answers questions about changes when the review page is asked (--approve web, or "approve": "web" in
 * the project config): the page, raced with the chat's own card when there is a person at the terminal
 * (the first answer counts). Undefined: the front end alone. Commands are still asked in the terminal only:
 * the page shows file changes.
 */
async function reviewPageApprover(
  start: ChatStart,
  projectConfig: LoadedConfig,
  terminal: { ask: Approver; say: (line: string) => void } | undefined,
): Promise<{ approve: Approver; page: ReviewPage } | undefined> {
  if (start.yes || (start.approve ?? projectConfig.config.approve) !== 'web') return undefined;
  if (!start.openReviewPage)
    throw new Error('--approve web needs the web review page, which this build lacks');
  const page = await start.openReviewPage();
  terminal?.say(page.announcement);
  const approve = terminal
    ? firstAnswer([
        { where: 'in the terminal', ask: terminal.ask },
        { where: 'in the browser', ask: page.ask },
      ])
    : page.ask;
  return { approve, page };
}

/** The person at the chat's terminal: the card for changes, a line in the transcript, the trust question. */
interface ChatTerminal {
  ask: Approver;
  say: (line: string) => void;
  /** Shows what the config would do and asks whether to trust it (true: trust it). */
  askTrust?: (summary: string) => Promise<boolean>;
}

/**
 * An untrusted project config applies only where it tightens protection. With a person at the terminal
 * they are asked once (trust it, or not now), and a yes is recorded as `editgate trust` records it; the
 * config is then loaded again, whole. Otherwise (or on not now) the notice says what was left out and the
 * command that trusts it.
 */
async function settleTrust(
  loaded: LoadedConfig,
  terminal: ChatTerminal | undefined,
  reload: () => Promise<LoadedConfig>,
): Promise<LoadedConfig> {
  const notice = loaded.trust?.notice;
  if (notice === undefined) return loaded;
  if (!terminal?.askTrust) {
    if (terminal) terminal.say(notice);
    else process.stderr.write(`${notice}\n`);
    return loaded;
  }
  const { trustLoaded, trustSummary } = await import('../../tools/config-trust.js');
  if (!(await terminal.askTrust(trustSummary(loaded)))) {
    terminal.say(notice);
    return loaded;
  }
  try {
    await trustLoaded(loaded);
  } catch (error) {
    if (!isEditgateError(error)) throw error;
    terminal.say(error.message);
    return loaded;
  }
  terminal.say('Trusted. A change to the file makes it untrusted again.');
  return reload();
}

/** A chat session, and the review page it opened (closed by the caller when the chat ends). */
interface OpenedSession {
  session: ChatSession;
  page?: ReviewPage;
}

async function openSession(
  start: ChatStart,
  frontEnd: SessionFrontEnd,
  projectDir: string,
  /** Where the person is, for --approve web: the card to race with the page, and a line to tell them. */
  terminal: ChatTerminal | undefined,
): Promise<OpenedSession> {
  const [{ loadConfig }, { ChatSession }] = await Promise.all([
    import('../../tools/config.js'),
    import('../session/chat-session.js'),
  ]);
  const projectConfig = await settleTrust(await loadConfig(start.root, start.configPath), terminal, () =>
    loadConfig(start.root, start.configPath),
  );
  const review = await reviewPageApprover(start, projectConfig, terminal);
  try {
    const session = await ChatSession.open({
      root: start.root,
      target: start.target,
      projectConfig,
      stateDir: start.stateDir,
      yes: start.yes,
      frontEnd,
      ...(review ? { approve: review.approve } : {}),
      store: SessionStore.forProject(projectDir, { root: start.root, model: start.target.label }),
    });
    return review ? { session, page: review.page } : { session };
  } catch (error) {
    await review?.page.close();
    throw error;
  }
}

/** Which saved session to continue, or undefined (with a note when there is none). */
async function pickSession(projectDir: string, resume: ChatStart['resume']): Promise<string | undefined> {
  if (!resume) return undefined;
  if (resume.id !== 'latest' && resume.id !== '') return resume.id;
  const sessions = await listSessions(projectDir);
  return resume.id === 'latest' ? sessions[0]?.id : undefined;
}

export async function runInteractive(
  start: ChatStart,
  input: TerminalInput,
  output: TerminalOutput,
): Promise<number> {
  const root = realpathSync(start.root);
  const projectDir = projectStateDir(start.stateDir, root);
  const [{ ChatApp }, { ChatCommands }, history] = await Promise.all([
    import('./chat-app.js'),
    import('./commands.js'),
    loadInputHistory(projectDir),
  ]);
  const app = new ChatApp({
    input,
    output,
    noColor: start.noColor,
    theme: start.theme,
    modelLabel: start.target.label,
    history,
    remember: (text) => void appendInputHistory(projectDir, text).catch(() => {}),
  });
  app.print(
    noteLines(`editgate chat · ${start.target.label} · ${root}\n/help for commands and keys`, app.look()),
  );
  const exited = app.start();

  const opened = openSession({ ...start, root }, app, projectDir, {
    ask: app.approve,
    say: (line) => app.note(line),
    askTrust: (summary) => app.askTrust(summary),
  });
  const session = opened.then(({ session }) => session);
  const commands = new ChatCommands({
    app,
    session,
    userConfig: start.userConfig,
    projectDir,
    resolveTarget: (spec) =>
      resolveModelTarget({ ...start.choice, model: spec, baseURL: undefined }, start.userConfig),
  });
  app.attach(commands);
  session.then(
    async (ready) => {
      if (start.resume?.id === '') await commands.run('/resume', new AbortController().signal);
      const id = await pickSession(projectDir, start.resume);
      if (!id) {
        if (start.resume?.id === 'latest')
          app.note('No saved session for this project yet: starting a new one.');
        return;
      }
      await commands.run(`/resume ${id}`, new AbortController().signal);
      void ready;
    },
    (error: unknown) => {
      app.note(error instanceof Error ? error.message : String(error), 'error');
      app.exit(2);
    },
  );
  const code = await exited;
  await session.then((ready) => ready.settle()).catch(() => {});
  await opened.then(({ page }) => page?.close()).catch(() => {});
  return code;
}

export async function runOneShot(
  start: ChatStart,
  task: string,
  options: { json: boolean; stdout: TerminalOutput; stderr: TerminalOutput },
): Promise<number> {
  const root = realpathSync(start.root);
  const projectDir = projectStateDir(start.stateDir, root);
  const { OneShot } = await import('./one-shot.js');
  const frontEnd = new OneShot({ ...options, noColor: start.noColor, theme: start.theme });
  // No one at a terminal: with --approve web the page alone answers (its link goes to standard error).
  const { session, page } = await openSession({ ...start, root }, frontEnd, projectDir, undefined);
  if (page) options.stderr.write(`${page.announcement}\n`);
  try {
    const id = await pickSession(projectDir, start.resume);
    if (id) session.adopt(await loadSession(projectDir, id));
    return await frontEnd.run(session, task);
  } finally {
    await page?.close();
  }
}
