import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../src/gate/policy.js';
import { loadConfig } from '../../src/tools/config.js';
import { ensureBuilt, REPO } from '../built-cli.js';
import { type Block, commandLines, docBlocks } from './blocks.js';

// The README's JSON: the config file example is one the config loader accepts and whose globs mean what
// the text says, and each MCP configuration starts a server that serves editgate's tools when its
// placeholders are filled in (the clone's folder and a project), as a client would start it.

let project: string;

beforeAll(async () => {
  await ensureBuilt();
  project = realpathSync(mkdtempSync(join(tmpdir(), 'editgate-readme-json-')));
  writeFileSync(join(project, 'a.txt'), 'hello\n');
}, 120_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

const jsonBlocks = docBlocks().filter((block) => block.lang === 'json');
const parsed = (block: Block) => JSON.parse(block.text) as Record<string, unknown>;

describe('the docs’ config file example', () => {
  const [config] = jsonBlocks.filter(
    (block) => block.file === 'docs/guides/config-and-trust.md' && 'policy' in parsed(block),
  );

  it('is accepted by the config loader', async () => {
    expect(config, 'a json block with "policy"').toBeDefined();
    writeFileSync(join(project, 'editgate.config.json'), config!.text);
    const loaded = await loadConfig(project);
    // As written (no one has trusted it here, so only its tightening parts would apply: issue #13).
    expect(loaded.trust?.written).toEqual(parsed(config!));
  });

  it('and every other config in the docs, are accepted by the config loader as written', async () => {
    const configs = jsonBlocks.filter((block) => 'policy' in parsed(block) || 'deny' in parsed(block));
    expect(configs.length).toBeGreaterThan(1);
    for (const block of configs) {
      writeFileSync(join(project, 'editgate.config.json'), block.text);
      const loaded = await loadConfig(project);
      expect(loaded.trust?.written, block.where).toEqual(parsed(block));
    }
  });

  it('denies lock files in every folder, and keeps .git denied, as the text says', async () => {
    const { policy, deny } = parsed(config!) as { policy: { rules: [] }; deny: string[] };
    const engine = new PolicyEngine(policy);
    for (const path of ['yarn.lock', 'packages/web/yarn.lock', 'a/b/c/Cargo.lock']) {
      expect(engine.evaluate('edit_file', path).action, path).toBe('deny');
    }
    expect(deny).toEqual(expect.arrayContaining(['**/.git', '**/.git/**']));
    // And what the text says of a root-only glob.
    const rootOnly = new PolicyEngine({ rules: [{ path: '*.lock', action: 'deny' }] });
    expect(rootOnly.evaluate('edit_file', 'yarn.lock').action).toBe('deny');
    expect(rootOnly.evaluate('edit_file', 'packages/web/yarn.lock').action).toBe('ask');
  });
});

/** The README's stand-ins, replaced by what the reader would write there. */
function fillIn(arg: string): string {
  return (
    arg
      .replaceAll('/abs/path/to/editgate', REPO)
      .replaceAll('/abs/path/to/project', project)
      // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's variable, as the README writes it
      .replaceAll('${workspaceFolder}', project)
  );
}

const FILESYSTEM_SERVER = '@modelcontextprotocol/server-filesystem';

/**
 * A server an editgate proxy configuration wraps with `npx -y PACKAGE@VERSION`, run from this repository's
 * install of that package instead (the same code, offline). The version must be the one pinned here.
 */
function localUpstream(args: string[]): string[] {
  const at = args.indexOf('npx');
  if (at === -1) return args;
  const { devDependencies } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  expect(args.slice(at + 1, at + 3)).toEqual([
    '-y',
    `${FILESYSTEM_SERVER}@${devDependencies[FILESYSTEM_SERVER]}`,
  ]);
  const entry = join(REPO, 'node_modules', FILESYSTEM_SERVER, 'dist', 'index.js');
  return [...args.slice(0, at), process.execPath, entry, ...args.slice(at + 3)];
}

/** Starts the server as the client would (`node` is this Node) and lists its tools. */
async function toolsServedBy(command: string, args: string[]): Promise<string[]> {
  const transport = new StdioClientTransport({
    command: command === 'node' ? process.execPath : command,
    args: localUpstream(args.map(fillIn)),
    cwd: project,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'readme-check', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    return tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe('the docs’ MCP configurations', () => {
  const servers = jsonBlocks.flatMap((block) => {
    const json = parsed(block) as { mcpServers?: Record<string, unknown>; servers?: Record<string, unknown> };
    const entries = Object.values(json.mcpServers ?? json.servers ?? {}) as Array<{
      command: string;
      args: string[];
    }>;
    return entries.map((entry): [string, { command: string; args: string[] }] => [block.where, entry]);
  });
  const claudeCode = docBlocks()
    .filter((block) => block.lang === 'sh')
    .flatMap((block) => commandLines(block))
    .filter(({ command }) => /^claude mcp add \S+ -- /.test(command))
    .map(({ command, where }): [string, { command: string; args: string[] }] => {
      const [program, ...args] = command.replace(/^claude mcp add \S+ -- /, '').split(/\s+/);
      return [`${where} (claude mcp add)`, { command: program!, args }];
    });

  it('are there: Claude Code, Claude Desktop and Cursor, VS Code', () => {
    expect(servers.length + claudeCode.length).toBeGreaterThanOrEqual(3);
  });

  it.each([...claudeCode, ...servers])(
    '%s starts a server with the editgate tools',
    async (_where, server) => {
      // Until editgate is published, the clone's build, run by node.
      expect(server.command).toBe('node');
      expect(server.args[0]).toBe('/abs/path/to/editgate/dist/cli/main.js');
      expect(await toolsServedBy(server.command, server.args)).toEqual(
        expect.arrayContaining(['read_file', 'edit_file', 'write_file']),
      );
    },
  );
});
