// `editgate chat`: the terminal coding agent. Kept small: the prompt must be up within a few tens of
// milliseconds of Node starting, so the agent, the tools and the AI SDK are imported only as they are needed.
import { ModelSetupError, resolveModelTarget } from '../../agent/providers/model-target.js';
import { loadUserConfig, UserConfigError, userConfigPath } from '../../agent/providers/user-config.js';
import { isEditgateError } from '../../core/errors.js';
import { stateDirFor } from '../../tools/state-dir.js';
import { defaultStateDir } from '../state-dir.js';
import { GLOBAL_OPTIONS_HELP, parseCommandLine, UsageError } from '../usage.js';

export const HELP = `Usage: editgate chat [--model PROVIDER/MODEL] [options]
       editgate chat -p "TASK" [--yes] [--json]

A coding agent in your terminal. The model works on the project in the root folder with editgate's tools:
every change it proposes is shown as a diff, then asked about (unless a policy rule or your earlier answer
allows it); commands it wants to run are asked about every time unless a policy rule allows them.

Models (--model PROVIDER/MODEL, or "model" in ${userConfigPath()}):
  anthropic/MODEL          key in ANTHROPIC_API_KEY (ANTHROPIC_BASE_URL for another endpoint)
  openai/MODEL             key in OPENAI_API_KEY (OPENAI_BASE_URL for another endpoint)
  ollama/MODEL             a local server at 127.0.0.1:11434/v1     lmstudio/MODEL   at :1234/v1
  vllm/MODEL               at 127.0.0.1:8000/v1                     llamacpp/MODEL   at :8080/v1
  openai-compatible/MODEL  any Chat Completions server: --base-url http://HOST:PORT/v1

Options:
  --model PROVIDER/MODEL   the model to talk to
  --base-url URL           the server's URL (ends in /v1 for Chat Completions servers)
  --api-key-env NAME       read the key from the variable NAME (a key is never given on the command line)
  -p, --print TASK         run one task without the REPL and exit (for scripts); changes and commands need
                           --yes or a policy rule, the rest is refused
  --json                   with -p: every event as a JSON line on standard output
  -c, --continue           continue this project's newest saved session
  --resume [ID]            continue a saved session (without ID: list them)

In the chat: Enter sends, Ctrl-J or Alt-Enter adds a line, Esc interrupts the model, /help lists commands.

${GLOBAL_OPTIONS_HELP}

Exit codes: 0 done, 1 the model or the server failed, 2 usage or setup error, 3 (-p) a change or command
needed approval and was refused.`;

const OPTIONS = {
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'api-key-env': { type: 'string' },
  print: { type: 'string', short: 'p' },
  continue: { type: 'boolean', short: 'c' },
  resume: { type: 'string' },
} as const;

/** `--resume` takes an optional ID: alone (or before another option) it means "list them". */
function optionalResume(args: string[]): string[] {
  return args.map((arg, i) =>
    arg === '--resume' && (args[i + 1] === undefined || args[i + 1]!.startsWith('-')) ? '--resume=' : arg,
  );
}

export async function run(args: string[]): Promise<number> {
  let line: ReturnType<typeof parseCommandLine<typeof OPTIONS>>;
  try {
    line = parseCommandLine(optionalResume(args), OPTIONS);
    if (line.help) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    if (line.positionals.length > 0) {
      throw new UsageError(
        `unexpected ${line.positionals.join(' ')}: give a task with -p "TASK", or type it in the chat`,
      );
    }
    if (line.globals.json && line.values.print === undefined)
      throw new UsageError('--json goes with -p "TASK"');
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`editgate chat: ${error.message}. Run editgate chat --help for its options.\n`);
    return 2;
  }
  const { globals, values } = line;
  const choice = {
    ...(values.model !== undefined ? { model: values.model } : {}),
    ...(values['base-url'] !== undefined ? { baseURL: values['base-url'] } : {}),
    ...(values['api-key-env'] !== undefined ? { apiKeyEnv: values['api-key-env'] } : {}),
  };
  let start: import('../../agent/repl/start.js').ChatStart;
  try {
    const userConfig = await loadUserConfig();
    start = {
      root: globals.root,
      target: resolveModelTarget(choice, userConfig),
      choice,
      userConfig,
      ...(globals.config ? { configPath: globals.config } : {}),
      // No root may hold the state folder (trust records, journals, saved sessions).
      stateDir: stateDirFor([globals.root], defaultStateDir()),
      yes: globals.yes,
      ...(globals.approve ? { approve: globals.approve } : {}),
      openReviewPage: async () => {
        const { openWebReview } = await import('../web-review.js');
        const web = await openWebReview(globals, 'editgate chat');
        return { ask: web.ask, announcement: web.announcement.join('\n'), close: web.close };
      },
      noColor: globals.noColor,
      theme: globals.theme,
      ...(values.continue
        ? { resume: { id: 'latest' } }
        : values.resume !== undefined
          ? { resume: { id: values.resume } }
          : {}),
    };
  } catch (error) {
    if (error instanceof ModelSetupError || error instanceof UserConfigError || isEditgateError(error)) {
      process.stderr.write(`editgate chat: ${error.message}\n`);
      return 2;
    }
    throw error;
  }

  const { runInteractive, runOneShot } = await import('../../agent/repl/start.js');
  try {
    if (values.print !== undefined) {
      if (values.print.trim() === '') throw new UsageError('-p needs a task: editgate chat -p "what to do"');
      return await runOneShot(start, values.print, {
        json: globals.json,
        stdout: process.stdout,
        stderr: process.stderr,
      });
    }
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      process.stderr.write(
        'editgate chat: the chat needs a terminal. For scripts, give the task with -p "TASK".\n',
      );
      return 2;
    }
    return await runInteractive(start, process.stdin, process.stdout);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`editgate chat: ${message}\n`);
    return 2;
  }
}
