/**
 * The four faces a scenario runs through, each as a user runs it: the library's `execute`
 * (createEditTools), `editgate apply` (the built CLI as a process, pipes only), `editgate mcp` over stdio
 * (a real SDK client) and `editgate proxy` in front of the real reference filesystem server (as
 * test/proxy/ runs it: the proxy in process, the filesystem server as a process). Each gives back the last
 * call's outcome; the files and the audit log are read from disk by the test.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  type CallToolResult,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Approver } from '../../src/gate/approval.js';
import { nobodyToAsk } from '../../src/gate/no-approver.js';
import { CONFIG_FILE, loadConfig } from '../../src/tools/config.js';
import { createEditTools } from '../../src/tools/index.js';
import { MAIN } from '../built-cli.js';
import { spawnCli } from '../cli/pty.js';
import { runCli } from '../cli/run-cli.js';
import { connectProxy, filesystemUpstream, onCleanup } from '../proxy/helpers.js';
import { trustConfig } from '../trusted-config.js';
import type { Answerer, Call, FaceName, Scenario } from './scenarios.js';

export interface Outcome {
  ok: boolean;
  code?: string;
  message: string;
}

export interface Workspace {
  root: string;
  state: string;
  audit: string;
}

/** A temp folder with the scenario's files and its trusted config; removed after the test. */
export function scenarioWorkspace(scenario: Scenario): Workspace {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'editgate-faces-')));
  onCleanup(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, 'root');
  const state = join(base, 'state');
  mkdirSync(root);
  for (const [name, content] of Object.entries(scenario.files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), content);
  }
  const config = {
    policy: { rules: scenario.rules },
    auditLog: '../audit.jsonl',
    ...(scenario.streamThreshold ? { streamThreshold: scenario.streamThreshold } : {}),
    ...(scenario.beforeChange ? { hooks: { beforeChange: [{ command: scenario.beforeChange }] } } : {}),
  };
  writeFileSync(join(root, CONFIG_FILE), JSON.stringify(config));
  trustConfig(join(root, CONFIG_FILE), state);
  return { root, state, audit: join(base, 'audit.jsonl') };
}

/** A person's no, with the reason the model is told. */
const PERSON_SAYS = 'not this one, please';
/** A person takes longer than this to answer (a faster decline is the client's own: no-approver.ts). */
const PERSON_DELAY_MS = 80;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type Face = (scenario: Scenario, ws: Workspace) => Promise<Outcome>;

/** The library: createEditTools with the root's config, and an Approver for who answers. */
async function viaExecute(scenario: Scenario, ws: Workspace): Promise<Outcome> {
  const { options } = await loadConfig(ws.root, undefined, { stateDir: ws.state });
  const controller = new AbortController();
  const approvers: Record<Answerer, Approver> = {
    policy: () => {
      throw new Error('policy decides this scenario: no one should be asked');
    },
    'person-denies': () => ({ deny: PERSON_SAYS }),
    nobody: nobodyToAsk(() => 'this library call has no one to ask'),
    cancel: (_request, context) => {
      controller.abort();
      return new Promise((_resolve, reject) => {
        const signal = context?.signal;
        if (signal?.aborted) reject(signal.reason);
        signal?.addEventListener('abort', () => reject(signal.reason));
      });
    },
  };
  const tools = createEditTools({
    root: ws.root,
    ...options,
    stateDir: ws.state,
    approve: approvers[scenario.answerer],
  });
  let last: Outcome = { ok: false, message: 'no call' };
  for (const call of scenario.calls) {
    const result = await tools.execute(call.name, call.input, { signal: controller.signal });
    last = result.ok
      ? { ok: true, message: result.message }
      : { ok: false, code: result.code, message: result.message };
  }
  return last;
}

/**
 * `editgate apply --json`: with pipes alone when no person answers (what a harness runs), in a real terminal
 * (a pty) when a person does, pressing n at the question.
 */
async function viaCli(scenario: Scenario, ws: Workspace): Promise<Outcome> {
  const calls = `${scenario.calls.map((call) => JSON.stringify(call)).join('\n')}\n`;
  let output: string;
  if (scenario.answerer === 'person-denies') {
    const file = join(dirname(ws.root), 'calls.jsonl');
    writeFileSync(file, calls);
    const run = spawnCli(['apply', file, '--json'], {
      cwd: ws.root,
      stateDir: ws.state,
      cols: 500,
      rows: 60,
    });
    await run.waitForText('n no');
    run.write('n');
    await run.exited();
    output = run.text();
  } else {
    const run = await runCli(['apply', '--json'], { cwd: ws.root, stateDir: ws.state, stdin: calls });
    if (run.stdout === '')
      throw new Error(`editgate apply printed no result (exit ${run.code}): ${run.stderr}`);
    output = run.stdout;
  }
  // Each call's result is one JSON line (in a terminal, after its diff and question).
  const results = output
    .split('\n')
    .filter((line) => line.startsWith('{"'))
    .map((line) => JSON.parse(line) as { ok: boolean; code?: string; message: string });
  const last = results.at(-1)!;
  return last.ok
    ? { ok: true, message: last.message }
    : { ok: false, code: last.code, message: last.message };
}

/** The calls' text and structured content. */
function fromMcp(result: CallToolResult): Outcome {
  const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  const structured = result.structuredContent as { ok: boolean; code?: string } | undefined;
  if (result.isError !== true) return { ok: true, message: text };
  return { ok: false, code: structured?.code ?? /\b([A-Z][A-Z_]{3,})\b/.exec(text)?.[1], message: text };
}

/**
 * An SDK client's elicitation answers for who answers: a person's Deny after a person's pause; for no one,
 * the instant decline of `claude -p` and `codex exec`; a cancel aborts the call while the question is open.
 */
function elicitationFor(answerer: Answerer, controller: AbortController) {
  return async (): Promise<ElicitResult> => {
    switch (answerer) {
      case 'person-denies':
        await pause(PERSON_DELAY_MS);
        return { action: 'accept', content: { decision: 'Deny', reason: PERSON_SAYS } };
      case 'nobody':
        return { action: 'decline' };
      case 'cancel':
        controller.abort();
        await pause(PERSON_DELAY_MS);
        return { action: 'decline' };
      case 'policy':
        throw new Error('policy decides this scenario: no one should be asked');
    }
  };
}

/** Runs calls through a connected client; a call the client cancelled is CANCELLED. */
async function callAll(client: Client, calls: Call[], controller: AbortController): Promise<Outcome> {
  let last: Outcome = { ok: false, message: 'no call' };
  for (const call of calls) {
    try {
      const result = (await client.callTool({ name: call.name, arguments: call.input }, undefined, {
        signal: controller.signal,
      })) as CallToolResult;
      last = fromMcp(result);
    } catch (error) {
      if (!controller.signal.aborted) throw error;
      // The client stopped waiting: MCP has no result for a cancelled request, so CANCELLED is what the
      // caller knows; the files and the audit log say what the server did.
      last = { ok: false, code: 'CANCELLED', message: String(error) };
    }
  }
  return last;
}

/** `editgate mcp <root>` over stdio, a real SDK client with form elicitation. */
async function viaMcp(scenario: Scenario, ws: Workspace): Promise<Outcome> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...process.env, EDITGATE_STATE_DIR: ws.state })) {
    if (value !== undefined) env[key] = value;
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, 'mcp', ws.root, '--approve', 'elicit'],
    stderr: 'pipe',
    env,
  });
  const controller = new AbortController();
  const client = new Client(
    { name: 'faces-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, elicitationFor(scenario.answerer, controller));
  await client.connect(transport);
  try {
    const outcome = await callAll(client, scenario.calls, controller);
    // The server finishes a cancelled call on its own time: wait for its audit line (or for nothing).
    if (scenario.answerer === 'cancel') await pause(300);
    return outcome;
  } finally {
    await client.close();
  }
}

/**
 * `editgate proxy` in front of the reference filesystem server (a real process on the root). No one to
 * ask is a client without elicitation: the proxy then has no way to ask.
 */
async function viaProxy(scenario: Scenario, ws: Workspace): Promise<Outcome> {
  const { options } = await loadConfig(ws.root, undefined, { stateDir: ws.state });
  const controller = new AbortController();
  const { client } = await connectProxy(
    {
      upstream: filesystemUpstream(ws.root),
      roots: [ws.root],
      stateDir: ws.state,
      config: options,
      approve: 'auto',
    },
    {
      capabilities: scenario.answerer === 'nobody' ? {} : { elicitation: { form: {} } },
      answers: [],
      setup: (sdkClient) => {
        if (scenario.answerer !== 'nobody')
          sdkClient.setRequestHandler(ElicitRequestSchema, elicitationFor(scenario.answerer, controller));
      },
    },
  );
  const calls = (scenario.proxyCalls ?? []).map((call) => ({
    name: call.name,
    input: { ...call.input, path: join(ws.root, String(call.input.path)) },
  }));
  const outcome = await callAll(client, calls, controller);
  if (scenario.answerer === 'cancel') await pause(300);
  return outcome;
}

export const FACES: Record<FaceName, Face> = {
  execute: viaExecute,
  cli: viaCli,
  mcp: viaMcp,
  proxy: viaProxy,
};
