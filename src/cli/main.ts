#!/usr/bin/env node
// The editgate command. Kept tiny at the top: each command's module is imported only when it runs, so
// `editgate --help` costs little more than starting Node.
import { readFileSync } from 'node:fs';

/** Each command lives in ./commands/<name>.js and exports `run(args): Promise<number>` (the exit code). */
const COMMANDS: Record<string, string> = {
  mcp: 'Run the MCP server (stdio by default, --http PORT for Streamable HTTP)',
};

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`);
  return `editgate: safe, reviewable file edits for AI coding agents

Usage: editgate <command> [options]      editgate <command> --help for a command's options

Commands:
${lines.join('\n')}

  --help, -h      show this help
  --version, -v   show the version
`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
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
