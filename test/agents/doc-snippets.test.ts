/**
 * Every setup snippet in docs/clients/ is true: each parses and has the shape its client reads, and for the
 * agents installed here the real agent is run with the snippet as its configuration (editgate's clone build
 * and a project folder put in for the placeholders) against a one-turn fake model, which must be offered
 * editgate's tools. A snippet is a fence right after `<!-- snippet: KIND -->`; every json, toml and sh fence
 * on those pages must be one, so a new snippet cannot go unchecked.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN, REPO } from '../built-cli.js';
import { claudeCode } from './clients/claude-code.js';
import type { AgentClient } from './clients/client.js';
import { codex } from './clients/codex.js';
import { geminiCli } from './clients/gemini-cli.js';
import { opencode } from './clients/opencode.js';
import { qwenCode } from './clients/qwen-code.js';
import { startScriptedModel } from './fake-models/server.js';
import { installedAgent } from './installed.js';
import { describeRun } from './mcp-session.js';
import { type AgentCommand, runAgent } from './run-agent.js';
import { type AgentWorkspace, makeWorkspace } from './workspace.js';

const DOCS = join(REPO, 'docs', 'clients');
const EDITGATE_PLACEHOLDER = '/abs/path/to/editgate/dist/cli/main.js';
const PROJECT_PLACEHOLDER = '/abs/path/to/project';

interface Snippet {
  page: string;
  kind: string;
  lang: string;
  text: string;
}

/** The fences of a page, each with the snippet marker right before it, if any. */
function fencesOf(page: string): Array<{ lang: string; text: string; kind?: string }> {
  const found: Array<{ lang: string; text: string; kind?: string }> = [];
  const fence = /(?:<!-- snippet: ([a-z-]+) -->\n)?```([a-z]*)\n([\s\S]*?)\n```/g;
  const markdown = readFileSync(join(DOCS, page), 'utf8');
  for (const match of markdown.matchAll(fence)) {
    found.push({ lang: match[2]!, text: match[3]!, ...(match[1] ? { kind: match[1] } : {}) });
  }
  return found;
}

const PAGES = readdirSync(DOCS).filter((name) => name.endsWith('.md'));
const SNIPPETS: Snippet[] = PAGES.flatMap((page) =>
  fencesOf(page).flatMap(({ lang, text, kind }) => (kind ? [{ page, kind, lang, text }] : [])),
);

function snippet(kind: string): Snippet {
  const found = SNIPPETS.filter((candidate) => candidate.kind === kind);
  expect(found, `one snippet "${kind}" in docs/clients`).toHaveLength(1);
  return found[0]!;
}

/** The snippet with the clone's build and this project put in for the placeholders. */
function filledIn(text: string, root: string): string {
  return text.replaceAll(EDITGATE_PLACEHOLDER, MAIN).replaceAll(PROJECT_PLACEHOLDER, root);
}

/** An MCP server entry as the JSON configs write it: node, the build, `mcp`, the project. */
function expectEditgateEntry(
  entry: { command?: unknown; args?: unknown; [key: string]: unknown },
  project: string,
): void {
  expect(entry.command).toBe('node');
  expect(entry.args).toEqual(expect.arrayContaining([EDITGATE_PLACEHOLDER, 'mcp', project]));
  const args = entry.args as string[];
  expect(args.indexOf('mcp')).toBe(args.indexOf(EDITGATE_PLACEHOLDER) + 1);
}

describe('docs/clients: every snippet is marked, parses and has its client shape', () => {
  it('each page has its snippets, and every json, toml and sh fence is a marked snippet', () => {
    expect(PAGES.sort()).toEqual(
      [
        'README.md',
        'claude-code.md',
        'claude-desktop.md',
        'codex.md',
        'cursor.md',
        'gemini-cli.md',
        'opencode.md',
        'qwen-code.md',
        'vscode.md',
      ].sort(),
    );
    for (const page of PAGES) {
      for (const fence of fencesOf(page)) {
        if (['json', 'toml', 'sh'].includes(fence.lang))
          expect(fence.kind, `${page}: a ${fence.lang} fence without a snippet marker`).toBeDefined();
      }
    }
    expect(SNIPPETS.map((found) => found.kind).sort()).toEqual(
      [
        'claude-code-cli',
        'claude-code-mcp-json',
        'claude-desktop-json',
        'codex-config-toml',
        'cursor-mcp-json',
        'gemini-settings',
        'opencode-json',
        'qwen-settings',
        'vscode-mcp-json',
      ].sort(),
    );
  });

  it('the JSON snippets parse, with editgate as their client reads a server', () => {
    for (const kind of ['claude-code-mcp-json', 'cursor-mcp-json', 'claude-desktop-json']) {
      const config = JSON.parse(snippet(kind).text) as { mcpServers: Record<string, { command?: unknown }> };
      expect(Object.keys(config)).toEqual(['mcpServers']);
      expectEditgateEntry(config.mcpServers.editgate!, PROJECT_PLACEHOLDER);
    }
    for (const kind of ['gemini-settings', 'qwen-settings']) {
      const config = JSON.parse(snippet(kind).text) as { mcpServers: Record<string, { trust?: unknown }> };
      expectEditgateEntry(config.mcpServers.editgate!, PROJECT_PLACEHOLDER);
      // trust skips the client's own confirmation: only with a mode that asks elsewhere.
      expect(config.mcpServers.editgate!.trust).toBe(true);
      expect(config.mcpServers.editgate).toMatchObject({
        args: expect.arrayContaining(['--approve', 'web']),
      });
    }
    const vscode = JSON.parse(snippet('vscode-mcp-json').text) as {
      servers: Record<string, { type?: unknown }>;
    };
    expect(vscode.servers.editgate!.type).toBe('stdio');
    expectEditgateEntry(vscode.servers.editgate!, '${workspaceFolder}');
    const open = JSON.parse(snippet('opencode-json').text) as {
      mcp: Record<string, { type?: unknown; command?: string[]; enabled?: unknown }>;
    };
    expect(open.mcp.editgate).toMatchObject({ type: 'local', enabled: true });
    expect(open.mcp.editgate!.command!.slice(0, 4)).toEqual([
      'node',
      EDITGATE_PLACEHOLDER,
      'mcp',
      PROJECT_PLACEHOLDER,
    ]);
  });

  it("Codex's TOML names the server's table and the two keys the page explains", () => {
    const text = snippet('codex-config-toml').text;
    const lines = text.split('\n');
    expect(lines[0]).toBe('[mcp_servers.editgate]');
    // key = value, one a line (Codex itself parses it in the run below).
    for (const line of lines.slice(1)) expect(line).toMatch(/^[a-z_]+ = ("[^"]*"|\[.*\]|true|false)$/);
    expect(lines).toContain('default_tools_approval_mode = "approve"');
    expect(lines).toContain('required = true');
  });
});

/** Runs the agent with the configuration `configure` wrote; the model's first request must offer editgate. */
async function expectToolsOffered(
  client: AgentClient,
  configure: (workspace: AgentWorkspace, run: AgentCommand) => AgentCommand,
): Promise<void> {
  await ensureBuilt();
  const workspace = makeWorkspace(`doc-${client.name}`);
  const model = await startScriptedModel({ protocol: client.protocol, script: [{ say: 'Nothing to do.' }] });
  try {
    const command = installedAgent(client.name);
    const base = client.prepare({ workspace, model, command, prompt: 'Say hello.', mcp: false });
    const run = configure(workspace, base);
    const result = await runAgent(run, model, 120_000);
    const report = describeRun(client, result, model.requests);
    console.log(`the snippet of docs/clients as the only MCP configuration\n${report}`);
    const offered = model.main()[0]?.offered ?? [];
    for (const tool of ['read_file', 'edit_file', 'multi_edit'])
      expect(
        offered.some((name) => name.endsWith(tool)),
        `${tool} offered\n${report}\n${result.stderr.slice(-2000)}\n${/"mcp_servers":\[[^\]]*\]/.exec(result.stdout)?.[0] ?? ''}`,
      ).toBe(true);
    expect(result.code, report).toBe(0);
  } finally {
    await model.close();
    workspace.remove();
  }
}

/** A JSON config file the client's prepare() wrote, with the snippet's keys merged in. */
function mergeJson(path: string, snippetText: string): void {
  const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  writeFileSync(path, JSON.stringify({ ...config, ...JSON.parse(snippetText) }, null, 2));
}

describe('docs/clients: the snippets configure the real agents (fake model, network namespace)', () => {
  it('Claude Code: `claude mcp add` as the page says', async () => {
    await expectToolsOffered(claudeCode, (workspace, run) => {
      const words = filledIn(snippet('claude-code-cli').text, workspace.root).split(/\s+/);
      expect(words.slice(0, 3)).toEqual(['claude', 'mcp', 'add']);
      execFileSync(run.command, words.slice(1), { cwd: workspace.root, env: run.env, stdio: 'pipe' });
      // Without --strict-mcp-config, so the server added above is the one Claude Code loads; waiting for it
      // as the page says (MCP_CONNECTION_NONBLOCKING=false: without it the server was still "pending").
      const args = run.args.filter((arg) => arg !== '--strict-mcp-config');
      return {
        ...run,
        args: [...args, '--allowedTools', 'mcp__editgate'],
        env: { ...run.env, MCP_CONNECTION_NONBLOCKING: 'false' },
      };
    });
  }, 180_000);

  it("Claude Code: the project's .mcp.json (its servers approved, as Claude Code asks once)", async () => {
    await expectToolsOffered(claudeCode, (workspace, run) => {
      writeFileSync(
        join(workspace.root, '.mcp.json'),
        filledIn(snippet('claude-code-mcp-json').text, workspace.root),
      );
      writeFileSync(
        join(run.env.CLAUDE_CONFIG_DIR!, 'settings.json'),
        JSON.stringify({ enableAllProjectMcpServers: true }),
      );
      const args = run.args.filter((arg) => arg !== '--strict-mcp-config');
      return {
        ...run,
        args: [...args, '--allowedTools', 'mcp__editgate'],
        env: { ...run.env, MCP_CONNECTION_NONBLOCKING: 'false' },
      };
    });
  }, 180_000);

  it("Codex: the page's table in config.toml", async () => {
    await expectToolsOffered(codex, (workspace, run) => {
      appendFileSync(
        join(run.env.CODEX_HOME!, 'config.toml'),
        `\n${filledIn(snippet('codex-config-toml').text, workspace.root)}\n`,
      );
      return run;
    });
  }, 180_000);

  it("Gemini CLI: the page's settings.json", async () => {
    await expectToolsOffered(geminiCli, (workspace, run) => {
      mergeJson(
        join(workspace.home, '.gemini', 'settings.json'),
        filledIn(snippet('gemini-settings').text, workspace.root),
      );
      return run;
    });
  }, 180_000);

  it("OpenCode: the page's opencode.json, in the project", async () => {
    await expectToolsOffered(opencode, (workspace, run) => {
      writeFileSync(
        join(workspace.root, 'opencode.json'),
        filledIn(snippet('opencode-json').text, workspace.root),
      );
      return run;
    });
  }, 180_000);

  it("Qwen Code: the page's settings.json", async () => {
    await expectToolsOffered(qwenCode, (workspace, run) => {
      mergeJson(
        join(workspace.home, '.qwen', 'settings.json'),
        filledIn(snippet('qwen-settings').text, workspace.root),
      );
      return run;
    });
  }, 180_000);
});
