/**
 * The README's three quick starts, each run as written until it ends in an approved edit (#33): the shell
 * one in a real pty where a person presses y, the agent one as the MCP server its `claude mcp add` line
 * starts, with a real SDK client whose form is accepted as it comes, and the library one as a program.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import ts from 'typescript';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN, REPO } from '../built-cli.js';
import { spawnCli } from '../cli/pty.js';
import { tempFolder } from '../temp-folder.js';
import { type Block, commandLines, pageBlocks } from './blocks.js';

const run = promisify(execFile);

beforeAll(ensureBuilt, 120_000);

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The app the quick starts edit: `src/app.ts` saying Hello, as the shell quick start's diff shows it. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the file's own template literal, as text
const APP = 'export function greet(name: string) {\n  return `Hello, ${name}!`;\n}\n';
// biome-ignore lint/suspicious/noTemplateCurlyInString: the file's own template literal, as text
const EDITED = 'export function greet(name: string) {\n  return `Welcome back, ${name}!`;\n}\n';

function project(): { root: string; stateDir: string } {
  const root = tempFolder('editgate-quick-start-');
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'app.ts'), APP);
  return { root, stateDir: tempFolder('editgate-quick-start-state-') };
}

/** The README's blocks under a "Quick start: ..." heading. */
function quickStart(title: string): Block[] {
  const blocks = pageBlocks('README.md').filter((block) => block.section === `Quick start: ${title}`);
  if (blocks.length === 0) throw new Error(`README.md: the quick start "${title}" has no code block`);
  return blocks;
}

/** Splits a shell line into words, as bash does for the plain and single-quoted words the README uses. */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]!);
}

describe('the README’s quick starts', () => {
  it('from the shell: the question shown is the one on screen, and y writes the edit', async () => {
    const [commands, transcript] = quickStart('from the shell');
    const [command] = commandLines(commands!);
    const [program, ...args] = words(command!.command);
    expect(program).toBe('editgate');
    const { root, stateDir } = project();
    const cli = spawnCli(args, { cwd: root, stateDir, cols: 120, env: { NO_COLOR: '1' } });
    cleanups.push(() => cli.kill());
    await cli.waitForText('v view the whole diff');
    const shown = transcript!.text.split('\n');
    const screen = cli
      .text()
      .split('\n')
      .map((row) => row.trimEnd());
    for (const line of shown) expect(screen, `README.md shows: ${line}`).toContain(line.trimEnd());
    await cli.answer('y');
    expect(await cli.exited()).toBe(0);
    expect(readFileSync(join(root, 'src', 'app.ts'), 'utf8')).toBe(EDITED);
  }, 60_000);

  it('in the agent you use: the server its line starts asks with the diff, and Accept as offered writes', async () => {
    const [block] = quickStart('in the agent you use');
    const [line] = commandLines(block!);
    const server = /^claude mcp add \S+ -- (.*)$/.exec(line!.command);
    expect(server, 'a claude mcp add line').not.toBeNull();
    const [command, ...args] = words(server![1]!);
    expect(command).toBe('node');
    expect(args[0]).toBe('/abs/path/to/editgate/dist/cli/main.js');
    const { root, stateDir } = project();
    // Claude Code starts the server in the project folder, as the quick start's own folder.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, ...args.slice(1)],
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: stateDir, EDITGATE_STATE_DIR: stateDir },
      stderr: 'pipe',
    });
    const client = new Client(
      { name: 'quick-start', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as {
        message: string;
        requestedSchema: { properties: Record<string, { default?: unknown }> };
      };
      asked.push(params.message);
      // Enter on the form as it comes: each field's default, nothing chosen by hand.
      const content = Object.fromEntries(
        Object.entries(params.requestedSchema.properties)
          .filter(([, field]) => field.default !== undefined)
          .map(([name, field]) => [name, field.default]),
      ) as Record<string, string>;
      await new Promise((resolve) => setTimeout(resolve, 300)); // a person reads before pressing Enter
      return { action: 'accept', content };
    });
    await client.connect(transport);
    cleanups.push(() => client.close());
    await client.callTool({ name: 'read_file', arguments: { file_path: 'src/app.ts' } });
    const result = await client.callTool({
      name: 'edit_file',
      arguments: { file_path: 'src/app.ts', old_string: 'Hello', new_string: 'Welcome back' },
    });
    expect(result.isError ?? false).toBe(false);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('src/app.ts (+1 -1)');
    expect(readFileSync(join(root, 'src', 'app.ts'), 'utf8')).toBe(EDITED);
    expect(readFileSync(join(REPO, 'README.md'), 'utf8')).toContain('src/app.ts (+1 -1)');
  }, 60_000);

  it('in your own agent: the program runs as written and makes its edit', async () => {
    const [block] = quickStart('in your own agent').filter((candidate) => candidate.lang === 'ts');
    expect(block, 'a ts block').toBeDefined();
    const { root } = project();
    const folder = tempFolder('editgate-quick-start-program-');
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'quick-start', type: 'module' }));
    mkdirSync(join(folder, 'node_modules'));
    symlinkSync(REPO, join(folder, 'node_modules', 'editgate'), 'dir');
    expect(block!.text).toContain("'/path/to/project'");
    const source = block!.text.replace("'/path/to/project'", JSON.stringify(root));
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    });
    writeFileSync(join(folder, 'program.mjs'), outputText);
    const { stdout } = await run(process.execPath, ['program.mjs'], { cwd: folder });
    expect(stdout).toMatch(/^true /m);
    expect(readFileSync(join(root, 'src', 'app.ts'), 'utf8')).toBe(EDITED);
  }, 60_000);
});
