import { execFile } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN, REPO } from '../built-cli.js';
import { type CliRun, runWithoutTerminal } from '../cli/run-cli.js';
import { allDocs, type Block, commandLines, docBlocks } from './blocks.js';

// The README's shell commands, run as a reader would run them, where they can run offline and without
// changing this repository: every `editgate ...` line (in a workspace holding the files the examples
// name), `npm link` (into a temporary prefix, so `editgate` is then found on PATH), and the `$ ...`
// transcripts of text blocks, whose output must be what the README shows. Any other command must be
// listed below with where it is checked instead, so a new command in the README cannot go unchecked.

const run = promisify(execFile);

/** Commands not run here, and why. */
const CHECKED_ELSEWHERE: Array<[RegExp, string]> = [
  [/^npm (install|ci)(\s+#.*)?$/, 'the set-up itself: .ci/run installs a fresh clone with npm ci'],
  [/^npm test(\s+#.*)?$/, '.ci/run runs it, and this test is part of it'],
  [/^npm pack(\s+#.*)?$/, 'rebuilds dist/ in place (prepack); test/package packs and installs the tarball'],
  [/^npm install --global \.\/editgate-\S+\.tgz/, 'test/package installs the tarball and runs its bin'],
  [/^npm install \/path\/to\/editgate\/editgate-\S+\.tgz/, 'test/package installs the tarball in an app'],
  [/^claude mcp add \S+ -- node /, 'mcp.test.ts starts the server it configures'],
  [/^tailscale cert\b/, 'the reader’s own VPN; test/cli/review-listen.e2e gives --listen a certificate'],
  [/^ollama serve\b/, 'a model server of the reader’s own; test/agent runs chat against a local fake one'],
  [
    /^(link=|curl |nonce=|while read |-d "|done$)/,
    'the JSON API script: test/readme/web-api.test.ts runs it against a live review page',
  ],
  [
    /^export (ANTHROPIC|OPENAI)_API_KEY=/,
    'the reader’s own key; test/agent checks the message when it is missing',
  ],
];

/**
 * editgate commands not run here: chat needs a model server, which no test can reach offline (test/agent
 * runs it against a local server that speaks each provider's protocol: chat.e2e, one-shot.e2e,
 * sessions.e2e); --approve web waits for an answer on the page (test/cli/review.e2e gives it one); review
 * serves the page until stopped (test/cli/review.e2e and review-listen.e2e start it, --listen included).
 */
const NOT_RUN_HERE = /^editgate chat\b|--approve web\b|^editgate review\b/;

/** What the README's examples edit: src/app.ts as its diff shows it, app.ts with a twice-found call. */
const FILES: Record<string, string> = {
  'src/app.ts': [
    "import { getUser } from './users.js';",
    '',
    'export async function greet(id: string) {',
    '  const user = await getUser(id);',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the file's own template literal, as text
    '  return `Hello, ${user.name}!`;',
    '}',
    '',
  ].join('\n'),
  'app.ts': 'x();\nx();\n',
};

let base: string;
/** A folder with an `editgate` that runs this repository's build, as npm link would provide. */
let shim: string;

beforeAll(async () => {
  await ensureBuilt();
  base = realpathSync(mkdtempSync(join(tmpdir(), 'editgate-readme-sh-')));
  shim = join(base, 'shim');
  mkdirSync(shim);
  writeFileSync(join(shim, 'editgate'), `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`);
  chmodSync(join(shim, 'editgate'), 0o755);
}, 120_000);

afterAll(() => {
  if (base) rmSync(base, { recursive: true, force: true });
});

let folders = 0;
function workspace(): string {
  const root = join(base, `ws-${++folders}`);
  for (const [name, content] of Object.entries(FILES)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), content);
  }
  return root;
}

/** The environment of one block's commands: no npm settings of ours, a state folder, PATH with editgate. */
function environment(prefix: string): Record<string, string> {
  const env: Record<string, string> = {};
  // The agents' own config folders follow HOME (or these): a `hooks install --user` in the docs must
  // write into the test's home, never the machine's.
  const agentHomes = new Set(['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'XDG_CONFIG_HOME', 'GEMINI_CLI_HOME']);
  for (const [key, value] of Object.entries(process.env)) {
    if (
      value !== undefined &&
      !key.toLowerCase().startsWith('npm_') &&
      key !== 'FORCE_COLOR' &&
      !agentHomes.has(key)
    )
      env[key] = value;
  }
  mkdirSync(join(prefix, 'home'), { recursive: true });
  return {
    ...env,
    HOME: join(prefix, 'home'),
    npm_config_cache: join(tmpdir(), 'editgate-readme-npm-cache'),
    EDITGATE_STATE_DIR: join(prefix, 'state'),
    npm_config_prefix: prefix,
    PATH: [join(prefix, 'bin'), shim, env.PATH].join(delimiter),
  };
}

/** A command line run by bash with no terminal at all (as CI runs it). */
function shell(command: string, cwd: string, env: Record<string, string>): Promise<CliRun> {
  return runWithoutTerminal('bash', ['-c', command], { cwd, env });
}

const shellBlocks = docBlocks().filter((block) => block.lang === 'sh' || block.lang === 'bash');

describe('the docs’ shell commands', () => {
  it('are each run here or listed with where they are checked', () => {
    const unaccounted = shellBlocks.flatMap((block) =>
      commandLines(block)
        .filter(
          ({ command }) =>
            !/^editgate\s/.test(command) && command !== 'npm link' && !command.startsWith('npm link '),
        )
        .filter(({ command }) => !CHECKED_ELSEWHERE.some(([pattern]) => pattern.test(command)))
        .map(({ command, where }) => `${where}: ${command}`),
    );
    expect(unaccounted).toEqual([]);
  });

  it.each(
    shellBlocks
      .filter((block) =>
        commandLines(block).some(
          ({ command }) => /^(editgate|npm link)\b/.test(command) && !NOT_RUN_HERE.test(command),
        ),
      )
      .map((block): [string, Block] => [block.where, block]),
  )('%s runs: exit 0, or 3 where it needs a person to approve', async (_where, block) => {
    const root = workspace();
    const prefix = join(base, `prefix-${folders}`);
    const env = environment(prefix);
    for (const { command, line, where } of commandLines(block)) {
      if (command.startsWith('npm link')) {
        // Linked into a temporary prefix: the clone's own package, as the reader's npm would link it.
        const linked = await shell(command, REPO, env);
        expect({ line, code: linked.code, stderr: linked.stderr }).toMatchObject({ line, code: 0 });
        continue;
      }
      if (!/^editgate\s/.test(command) || NOT_RUN_HERE.test(command)) continue;
      const result = await shell(command, root, env);
      const outcome = { line, command, code: result.code };
      if (result.code === 3) {
        // No terminal to ask (as in CI): the change was computed and shown, then refused for want of a yes.
        expect(result.stderr, where).toContain('there is no terminal to ask');
      } else {
        expect(outcome, result.stderr).toEqual({ ...outcome, code: 0 });
      }
    }
  });

  it('npm link puts an editgate on PATH that is this clone', async () => {
    const prefix = join(base, 'prefix-link');
    const env = environment(prefix);
    expect((await shell('npm link', REPO, env)).code).toBe(0);
    const { stdout } = await run(join(prefix, 'bin', 'editgate'), ['--version'], { env });
    const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    expect(stdout).toBe(`${version}\n`);
  });
});

describe('the docs’ transcripts', () => {
  /** Text blocks that show commands (lines starting "$ ") and what they print. */
  const transcripts = docBlocks().filter((block) => block.lang === 'text' && block.text.startsWith('$ '));

  it('exist (the hint example)', () => {
    expect(transcripts.length).toBeGreaterThanOrEqual(1);
  });

  it.each(transcripts.map((block): [string, Block] => [block.where, block]))(
    '%s prints what it shows ("..." ends a line early)',
    async (_where, block) => {
      const root = workspace();
      const env = environment(join(base, `prefix-${folders}`));
      const steps = block.text.split(/^\$ /m).filter(Boolean);
      for (const step of steps) {
        const [command, ...expected] = step.replace(/\n$/, '').split('\n');
        const result = await shell(command!, root, env);
        const printed = `${result.stdout}${result.stderr}`.replace(/\n$/, '').split('\n');
        expect(printed.length, `${command}\n${printed.join('\n')}`).toBe(expected.length);
        expected.forEach((line, i) => {
          if (line.endsWith('...')) expect(printed[i]!.startsWith(line.slice(0, -3)), printed[i]).toBe(true);
          else expect(printed[i]).toBe(line);
        });
      }
    },
  );
});

describe('the docs', () => {
  it('documents every command of editgate --help', async () => {
    const { stdout } = await run(process.execPath, [MAIN, '--help']);
    const commands = [
      ...stdout
        .split('Commands:\n')[1]!
        .split('\n\n')[0]!
        .matchAll(/^ {2}(\S+)/gm),
    ].map((match) => match[1]!);
    expect(commands.length).toBeGreaterThan(5);
    for (const command of commands) expect(allDocs(), command).toContain(`| \`editgate ${command}`);
  });

  it('marks every npx form of editgate as for the published package', () => {
    const paragraphs = allDocs().split(/\n\s*\n/);
    const unmarked = paragraphs.filter(
      (paragraph) => /npx (-y )?editgate|"command": "npx"/.test(paragraph) && !/published/.test(paragraph),
    );
    expect(unmarked).toEqual([]);
  });

  it('names the tarball npm pack writes for the version in package.json', () => {
    const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    const names = [...allDocs().matchAll(/editgate-(\d+\.\d+\.\d+[^\s/]*?)\.tgz/g)].map((match) => match[1]);
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names)).toEqual(new Set([version]));
  });
});
