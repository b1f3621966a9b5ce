import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureBuilt, MAIN } from '../built-cli.js';
import { type PtyRun, spawnInPty } from '../cli/pty.js';
import type { AgentClient } from './clients/client.js';
import type { Turn } from './fake-models/script.js';
import { type ModelRequest, type ScriptedModel, startScriptedModel } from './fake-models/server.js';
import { installedAgent } from './installed.js';
import { type AgentCommand, isolatedCommand } from './run-agent.js';
import { type AgentWorkspace, makeWorkspace } from './workspace.js';

/**
 * The agent in a real terminal (a pty read through a headless xterm, test/cli/pty.ts), for what only an
 * interactive session shows: its screen, its questions, keys typed in answer. Isolated as runAgent is, and
 * with only `run.env` (started through `env -i`: the pty helper would otherwise pass this process's
 * environment on), plus a colour terminal's TERM. The caller ends it (`kill()`) when done.
 */
export function runAgentInPty(
  run: AgentCommand,
  model: ScriptedModel,
  { stateDir, cols = 120, rows = 40 }: { stateDir: string; cols?: number; rows?: number },
): PtyRun {
  const [command, args] = isolatedCommand(run, model);
  const env = { ...run.env, TERM: 'xterm-256color', COLORTERM: 'truecolor' };
  delete (env as Record<string, string | undefined>).NO_COLOR;
  delete (env as Record<string, string | undefined>).CI;
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  return spawnInPty('/usr/bin/env', ['-i', ...assignments, command, ...args], {
    cwd: run.cwd,
    stateDir,
    cols,
    rows,
  });
}

export interface PtyAgentSession {
  workspace: AgentWorkspace;
  model: ScriptedModel;
  run: AgentCommand;
  terminal: PtyRun;
}

export interface PtyAgentOptions {
  client: AgentClient;
  /** Names the workspace folder. */
  label: string;
  /** The model's turns after the client's preamble (which comes first when editgate's MCP server is on). */
  turns: Turn[] | ((workspace: AgentWorkspace) => Turn[]);
  /** Files written into the project root before the agent starts. */
  files?: Record<string, string>;
  /**
   * editgate's MCP server on auto-detect with no config, so no policy rule decides and every change is asked
   * (default: the workspace's `--approve policy` with a config that allows every change).
   */
  askEveryChange?: boolean;
  /** editgate's MCP server configured (default true); `false` with `ownEdits` for the agent's own tools. */
  mcp?: boolean;
  ownEdits?: boolean;
  isMain?: (request: ModelRequest) => boolean;
  /** Runs once the agent is configured and before it starts: more set-up in its HOME (hooks). */
  beforeStart?: (session: Omit<PtyAgentSession, 'terminal'>) => void;
}

/**
 * One interactive agent session in a terminal, set up the way every pty test sets it up: a workspace, the
 * scripted model, the agent's interactive configuration, the agent started in a pty; `drive` then reads the
 * screen and types keys. The agent is stopped and awaited, the model closed and the folders removed
 * afterwards, whatever happened (an agent still writing its session files would otherwise break removal).
 */
export async function inAgentPty(
  options: PtyAgentOptions,
  drive: (session: PtyAgentSession) => Promise<void>,
): Promise<void> {
  const { client, mcp = true } = options;
  await ensureBuilt();
  const base = makeWorkspace(options.label);
  let workspace = base;
  if (options.askEveryChange) {
    rmSync(join(base.root, 'editgate.config.json'));
    workspace = { ...base, editgate: { ...base.editgate, args: [MAIN, 'mcp', base.root] } };
  }
  let model: ScriptedModel | undefined;
  let terminal: PtyRun | undefined;
  try {
    for (const [path, content] of Object.entries(options.files ?? {})) {
      mkdirSync(dirname(join(workspace.root, path)), { recursive: true });
      writeFileSync(join(workspace.root, path), content);
    }
    const turns = typeof options.turns === 'function' ? options.turns(workspace) : options.turns;
    model = await startScriptedModel({
      protocol: client.protocol,
      script: [...(mcp ? (client.preamble ?? []) : []), ...turns],
      ...(options.isMain ? { isMain: options.isMain } : {}),
    });
    const run = client.prepare({
      workspace,
      model,
      command: installedAgent(client.name),
      prompt: '',
      mcp,
      ...(options.ownEdits ? { ownEdits: true } : {}),
      interactive: true,
    });
    options.beforeStart?.({ workspace, model, run });
    terminal = runAgentInPty(run, model, { stateDir: workspace.state });
    await drive({ workspace, model, run, terminal });
  } finally {
    await terminal?.stop();
    await model?.close();
    workspace.remove();
  }
}

/** Types a prompt as a person does: the text, then, once the screen shows it, Enter. */
export async function typePrompt(terminal: PtyRun, prompt = 'Make the planned changes.'): Promise<void> {
  terminal.write(prompt);
  await terminal.waitForText(prompt, 30_000);
  terminal.write('\r');
}

/**
 * Claude Code connects MCP servers after its prompt is up, and a prompt sent at once can go out without
 * editgate's tools: this waits for the prompt, opens `/mcp`, waits until it lists editgate connected with
 * `tools` tools, and closes it again.
 */
export async function waitForEditgateInClaude(terminal: PtyRun, tools: number): Promise<void> {
  await terminal.waitForText('? for shortcuts', 30_000);
  terminal.write('/mcp');
  await terminal.waitForText('/mcp', 30_000);
  terminal.write('\r');
  await terminal.waitForText(new RegExp(`✔ editgate\\s+${tools} tools`), 60_000);
  terminal.write('\x1b');
  await terminal.waitForText('? for shortcuts', 30_000);
}
