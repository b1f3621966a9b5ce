import { realpathSync } from 'node:fs';
import type { ThemeOption } from '../../terminal/palette.js';
import type { TerminalInput, TerminalOutput } from '../../terminal/tty-modes.js';
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
}

async function openSession(
  start: ChatStart,
  frontEnd: SessionFrontEnd,
  projectDir: string,
): Promise<ChatSession> {
  const [{ loadConfig }, { ChatSession }] = await Promise.all([
    import('../../tools/config.js'),
    import('../session/chat-session.js'),
  ]);
  const projectConfig = await loadConfig(start.root, start.configPath);
  return ChatSession.open({
    root: start.root,
    target: start.target,
    projectConfig,
    stateDir: start.stateDir,
    yes: start.yes,
    frontEnd,
    store: SessionStore.forProject(projectDir, { root: start.root, model: start.target.label }),
  });
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

  const session = openSession({ ...start, root }, app, projectDir);
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
  const session = await openSession({ ...start, root }, frontEnd, projectDir);
  const id = await pickSession(projectDir, start.resume);
  if (id) session.adopt(await loadSession(projectDir, id));
  return frontEnd.run(session, task);
}
