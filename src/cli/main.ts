#!/usr/bin/env node
// The editgate command. Kept tiny at the top: each command's module is imported only when it runs, so
// `editgate --help` costs little more than starting Node.
import { existsSync } from 'node:fs';

/**
 * The commands, in the order --help lists them: one line each here, and the command itself in
 * ./commands/<name>.js, which exports `run(args): Promise<number>` (the exit code) and documents itself
 * under `editgate <name> --help`. Registering a command is adding its line here.
 */
const COMMANDS: Record<string, string> = {
  read: 'Show a file with numbered lines (to pick a --range): editgate read FILE',
  edit: 'Replace exact text in a file: editgate edit FILE --old TEXT --new TEXT',
  write: 'Create or replace a whole file from --content or standard input',
  lines: 'Replace lines by number: editgate lines FILE --range START:END --with TEXT',
  undo: "Undo editgate's last change to a file",
  apply: 'Run tool calls given as JSON (Anthropic, OpenAI or {name, input}) from a file or standard input',
  diff: 'Show the diff of two files (exit 0 equal, 1 different, 2 trouble)',
  mcp: 'Run the MCP server (stdio by default, --http PORT for Streamable HTTP)',
  chat: 'A coding agent in your terminal: every change is a diff before it is a question',
  review: 'Serve the web review page for a root: other editgate processes send their changes to it',
  proxy: 'Wrap another MCP server: a diff and a question before each of its writes',
  trust:
    "Show what a folder's editgate.config.json would do, and ask to trust it (--revoke: take trust back)",
  hooks: "Put editgate in front of an agent's own edit tools: editgate hooks install claude-code",
  hook: 'What an agent runs before and after its own edits (written by editgate hooks install)',
};

/** Commands that may write a file (and so leave a temp file if interrupted); diff, read, help load less. */
const WRITING_COMMANDS = new Set([
  'edit',
  'write',
  'lines',
  'undo',
  'apply',
  'mcp',
  'chat',
  'review',
  'proxy',
]);

/**
 * Global options that take a value (GLOBAL_OPTIONS in usage.ts), so `editgate --root DIR edit ...` finds
 * "edit" as the command. Listed here so that --help loads no module but this one; a test checks the two.
 */
const GLOBAL_VALUE_OPTIONS = new Set(['--root', '--matching', '--theme', '--config', '--approve']);

/** What to type: the usage line and the commands (printed alone when no command is given). */
function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`);
  return `Usage: editgate <command> [options]      editgate <command> --help for a command's options

Commands:
${lines.join('\n')}
`;
}

function help(): string {
  return `editgate: safe, reviewable file edits for AI coding agents

${usage()}
Every change is computed first and shown as a diff; you answer with one key:
  y yes   a yes to this file for the session   A yes to every edit   n no   r no, with a reason   v view
--dry-run (edit, write, lines, undo) shows the diff and writes nothing.

Global options (before or after the command; each command's --help says which it takes):
  --root DIR        the workspace root; nothing outside it is touched (default: the current folder)
  -y, --yes         approve every change without asking (each diff is still shown)
  --matching MODE   exact, or tolerant (default)
  --no-color        no colours (NO_COLOR and FORCE_COLOR are respected too)
  --theme THEME     dark, light or auto (default)
  --json            results as JSON lines on standard output
  --config FILE     a config file instead of ROOT/editgate.config.json
  --approve web     review each change on a local web page too (--open opens it); see editgate review
  -h, --help        show help
  -v, --version     show the version

Config file (ROOT/editgate.config.json), all keys optional; globs are relative to the root, * stays
within one folder and **/ crosses any number ("**/*.lock": every lock file, "*.lock": those at the root):
  {
    "policy": { "rules": [{ "tool": "edit_file", "path": "src/**", "action": "allow" }] },  allow|ask|deny
    "deny": ["secrets/**"],                      never read or changed; .git and editgate.config.json always
    "hooks": { "beforeChange": [{ "command": "./check.sh" }], "afterChange": [{ "command": "npm run fmt" }] },
    "auditLog": "/var/log/editgate.jsonl",      a JSON line per change and denial (outside the root)
    "stateDir": "/path/outside/the/root",        undo history (default ~/.local/state/editgate)
    "approve": "web",                            ask on the web review page (default "terminal")
    "matching": "tolerant", "requireReadBeforeEdit": true, "readLimit": 2000
  }

Until you trust a config (editgate trust ROOT), its hooks never run, auditLog and stateDir are ignored and
only its deny globs and deny and ask rules apply; a changed config is untrusted again, trust in one folder's
config never carries over to another's, and editgate trust --revoke takes it back.

Exit codes (read, edit, write, lines, undo, apply):
  0 done (with --dry-run: could be done)   1 refused by a guard (not found, ambiguous, stale...)
  2 usage or input error (nothing tried)   3 denied (by you, a policy rule or a hook)
`;
}

/** Splits off the command, keeping the global options given before it (they are passed on after it). */
function findCommand(argv: string[]): { command: string | undefined; args: string[] } {
  let index = 0;
  while (index < argv.length && argv[index]!.startsWith('-') && !isHelpOrVersion(argv[index]!)) {
    index += GLOBAL_VALUE_OPTIONS.has(argv[index]!) ? 2 : 1;
  }
  if (index >= argv.length) return { command: argv.find(isHelpOrVersion), args: argv };
  return { command: argv[index], args: [...argv.slice(0, index), ...argv.slice(index + 1)] };
}

function isHelpOrVersion(arg: string): boolean {
  return ['--help', '-h', '--version', '-v'].includes(arg);
}

async function main(argv: string[]): Promise<number> {
  const { command, args: rest } = findCommand(argv);
  if (command === '--help' || command === '-h') {
    process.stdout.write(help());
    return 0;
  }
  if (command === '--version' || command === '-v') {
    const { packageVersion } = await import('../tools/version.js');
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (command === undefined) {
    // Nothing to do is a wrong command line (exit 2), as with any command missing its arguments.
    const given = rest.length > 0 ? `options (${rest.join(' ')}) but ` : '';
    process.stderr.write(
      `editgate: ${given}no command given.\n\n${usage()}\nRun editgate --help for the options, the config file and the exit codes.\n`,
    );
    return 2;
  }
  if (command === 'help') {
    // `editgate help edit` is `editgate edit --help`.
    const topic = rest.find((arg) => !arg.startsWith('-'));
    if (topic === undefined) {
      process.stdout.write(help());
      return 0;
    }
    return runCommand(topic, ['--help']);
  }
  return runCommand(command, rest);
}

async function runCommand(command: string, args: string[]): Promise<number> {
  if (!Object.hasOwn(COMMANDS, command)) {
    process.stderr.write(
      `editgate: unknown command "${command}". Run editgate --help to see the commands.\n`,
    );
    return 2;
  }
  // The MCP server starts once per client session: it runs from one bundled file when the build made it
  // (mcp-entry.ts says why; that entry sets up its own signal cleanup).
  const bundle = new URL('./mcp-server.bundle.mjs', import.meta.url);
  if (command === 'mcp' && existsSync(bundle)) {
    const module = (await import(bundle.href)) as { run: (args: string[]) => Promise<number> };
    return module.run(args);
  }
  // An agent starts `editgate hook` for every tool call: one bundled file, as for the MCP server.
  const hookBundle = new URL('./hook.bundle.mjs', import.meta.url);
  if (command === 'hook' && existsSync(hookBundle)) {
    const module = (await import(hookBundle.href)) as { run: (args: string[]) => Promise<number> };
    return module.run(args);
  }
  if (WRITING_COMMANDS.has(command)) {
    // Ctrl-C or a SIGTERM in the middle of a streamed edit must not leave a full-size temp copy behind.
    const { removeLeftoversOnSignals } = await import('../workspace/exit-cleanup.js');
    removeLeftoversOnSignals();
  }
  const module = (await import(`./commands/${command}.js`)) as { run: (args: string[]) => Promise<number> };
  return module.run(args);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`editgate: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
