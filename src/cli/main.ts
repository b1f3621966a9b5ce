#!/usr/bin/env node
// The editgate command. Kept tiny at the top: each command's module is imported only when it runs, so
// `editgate --help` costs little more than starting Node.
import { readFileSync } from 'node:fs';

/** Each command lives in ./commands/<name>.js and exports `run(args): Promise<number>` (the exit code). */
const COMMANDS: Record<string, string> = {
  edit: 'Replace exact text in a file: editgate edit FILE --old TEXT --new TEXT',
  write: 'Create or replace a whole file from --content or standard input',
  lines: 'Replace lines by number: editgate lines FILE --range START:END --with TEXT',
  undo: "Undo editgate's last change to a file",
  apply: 'Run tool calls given as JSON (Anthropic, OpenAI or {name, input}) from a file or standard input',
  diff: 'Show the diff of two files (exit 0 equal, 1 different, 2 trouble)',
  mcp: 'Run the MCP server (stdio by default, --http PORT for Streamable HTTP)',
  review: 'Serve the web review page for a root: other editgate processes send their changes to it',
};

/**
 * Global options that take a value (see GLOBAL_OPTIONS in usage.ts), so `editgate --root DIR edit ...`
 * finds "edit" as the command. Listed here so that --help loads no module but this one.
 */
const GLOBAL_VALUE_OPTIONS = new Set(['--root', '--matching', '--theme', '--config', '--approve']);

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`);
  return `editgate: safe, reviewable file edits for AI coding agents

Usage: editgate <command> [options]      editgate <command> --help for a command's options

Commands:
${lines.join('\n')}

Every change is computed first and shown as a diff; you answer with one key:
  y yes   a yes to this file for the session   A yes to every edit   n no   r no, with a reason   v view

Global options (every file command; see editgate <command> --help):
  --root DIR        the workspace root; nothing outside it is touched (default: the current folder)
  -y, --yes         approve every change without asking (each diff is still shown)
  --matching MODE   exact, or tolerant (default)
  --no-color        no colours (NO_COLOR and FORCE_COLOR are respected too)
  --theme THEME     dark, light or auto (default)
  --json            results as JSON lines on standard output
  --config FILE     a config file instead of ROOT/editgate.config.json
  --approve web     review each change on a local web page too (--open opens it); see editgate review
  --help, -h        show help
  --version, -v     show the version

Config file (ROOT/editgate.config.json), all keys optional:
  {
    "policy": { "rules": [{ "tool": "edit_file", "path": "src/**", "action": "allow" }] },  allow|ask|deny
    "deny": ["secrets/**"],                      paths never read or changed (.git always)
    "hooks": { "beforeChange": [{ "command": "./check.sh" }], "afterChange": [{ "command": "npm run fmt" }] },
    "auditLog": ".editgate/audit.jsonl",         a JSON line per change and denial
    "stateDir": "/path/outside/the/root",        undo history (default ~/.local/state/editgate)
    "approve": "web",                            ask on the web review page (default "terminal")
    "matching": "tolerant", "requireReadBeforeEdit": true, "readLimit": 2000
  }

Exit codes (edit, write, lines, undo, apply):
  0 done   1 refused by a guard (not found, ambiguous, stale...)   2 usage or input error   3 denied
`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** Splits off the command, keeping the global options given before it (they are passed on after it). */
function findCommand(argv: string[]): { command: string | undefined; args: string[] } {
  let index = 0;
  while (index < argv.length && argv[index]!.startsWith('-') && !isHelpOrVersion(argv[index]!)) {
    index += GLOBAL_VALUE_OPTIONS.has(argv[index]!) ? 2 : 1;
  }
  if (index >= argv.length) return { command: argv.find(isHelpOrVersion), args: [] };
  return { command: argv[index], args: [...argv.slice(0, index), ...argv.slice(index + 1)] };
}

function isHelpOrVersion(arg: string): boolean {
  return ['--help', '-h', '--version', '-v'].includes(arg);
}

async function main(argv: string[]): Promise<number> {
  const { command, args: rest } = findCommand(argv);
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(help());
    return 0;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (!Object.hasOwn(COMMANDS, command)) {
    process.stderr.write(
      `editgate: unknown command "${command}". Run editgate --help to see the commands.\n`,
    );
    return 2;
  }
  const module = (await import(`./commands/${command}.js`)) as { run: (args: string[]) => Promise<number> };
  return module.run(rest);
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
