import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HookAdapter, HookReply } from '../../src/hooks/adapter.js';
import { adapter as claudeCode } from '../../src/hooks/agents/claude-code.js';
import { adapter as codex } from '../../src/hooks/agents/codex.js';
import { adapter as geminiCli } from '../../src/hooks/agents/gemini-cli.js';
import { adapter as opencode } from '../../src/hooks/agents/opencode.js';
import { adapter as qwenCode } from '../../src/hooks/agents/qwen-code.js';
import { type HookApproveMode, runHook } from '../../src/hooks/runner.js';
import { fakeGithubToken } from '../secret-fixtures.js';
import { tempFolder } from '../temp-folder.js';
import { trustConfig } from '../trusted-config.js';

// What the checks find (issue #32: a change rule that asks or denies, a masked secret, a syntax error the
// change adds) in every agent's hook answer, worded the agent's way: in the deny reason, in the question
// ("ask", agent mode), and for the model with an allowed call (before the tool where the agent's pre-tool
// answer reaches the model, else after it). Each agent's event is the shape its hook receives (the
// recorded events of <agent>.test.ts); one Python file's edit that drops a bracket, or adds a token.

const BEFORE = 'def f(x):\n    return x\n';
const BROKEN = 'def f(x):\n    return (x\n';
const SYNTAX = 'a.py:2: cannot read "return (x"';

interface AgentCase {
  adapter: HookAdapter;
  /** The agent's tool in these events, as a policy rule names it. */
  tool: string;
  /** The pre- and post-tool events of one call writing `content` over a.py (which holds BEFORE). */
  events(root: string, content: string): { pre: unknown; post: unknown };
}

function codexPatch(content: string): string {
  const lines = content.split('\n').slice(0, -1);
  return [
    '*** Begin Patch',
    '*** Update File: a.py',
    '@@',
    ...BEFORE.split('\n')
      .slice(0, -1)
      .map((line) => `-${line}`),
    ...lines.map((line) => `+${line}`),
    '*** End Patch',
    '',
  ].join('\n');
}

const AGENTS: AgentCase[] = [
  {
    adapter: claudeCode,
    tool: 'Write',
    events: (root, content) => {
      const event = (name: string) => ({
        session_id: 's',
        cwd: root,
        hook_event_name: name,
        tool_name: 'Write',
        tool_input: { file_path: join(root, 'a.py'), content },
        tool_use_id: 'toolu_1',
      });
      return { pre: event('PreToolUse'), post: event('PostToolUse') };
    },
  },
  {
    adapter: codex,
    tool: 'apply_patch',
    events: (root, content) => {
      const event = (name: string) => ({
        session_id: 's',
        turn_id: 't',
        cwd: root,
        hook_event_name: name,
        model: 'gpt-5.5',
        permission_mode: 'default',
        tool_name: 'apply_patch',
        tool_input: { command: codexPatch(content) },
        tool_use_id: 'call_1',
      });
      return { pre: event('PreToolUse'), post: event('PostToolUse') };
    },
  },
  {
    adapter: geminiCli,
    tool: 'write_file',
    events: (root, content) => {
      const event = (name: string) => ({
        session_id: 's',
        cwd: root,
        hook_event_name: name,
        tool_name: 'write_file',
        tool_input: { file_path: 'a.py', content },
      });
      return { pre: event('BeforeTool'), post: event('AfterTool') };
    },
  },
  {
    adapter: qwenCode,
    tool: 'write_file',
    events: (root, content) => {
      const event = (name: string) => ({
        session_id: 's',
        cwd: root,
        hook_event_name: name,
        tool_name: 'write_file',
        tool_input: { file_path: join(root, 'a.py'), content },
        tool_use_id: 'toolu_1',
      });
      return { pre: event('PreToolUse'), post: event('PostToolUse') };
    },
  },
  {
    adapter: opencode,
    tool: 'write',
    events: (root, content) => {
      const event = (name: string) => ({
        hook_event_name: name,
        session_id: 's',
        call_id: 'c1',
        tool: 'write',
        args: { filePath: join(root, 'a.py'), content },
        cwd: root,
      });
      return { pre: event('tool.execute.before'), post: event('tool.execute.after') };
    },
  },
];

function project(config: Record<string, unknown>): { root: string; state: string } {
  const folder = tempFolder('editgate-hook-findings-');
  const root = join(folder, 'project');
  const state = join(folder, 'state');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'editgate.config.json'), JSON.stringify(config));
  trustConfig(join(root, 'editgate.config.json'), state);
  writeFileSync(join(root, 'a.py'), BEFORE);
  return { root, state };
}

/** Everything the answer says (each text in its JSON, and standard error), wherever the protocol puts it. */
function said(reply: HookReply): string {
  const texts: string[] = [reply.stderr ?? ''];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') texts.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  if (reply.stdout.trim()) walk(JSON.parse(reply.stdout));
  return texts.join('\n');
}

const denied = (reply: HookReply) =>
  reply.exitCode === 2 || /"(permissionDecision|decision)":"deny"/.test(reply.stdout);

async function call(
  agent: AgentCase,
  config: Record<string, unknown>,
  content: string,
  approve: HookApproveMode = 'policy',
) {
  const { root, state } = project(config);
  const { pre, post } = agent.events(root, content);
  const options = { adapter: agent.adapter, approve, stateDir: state };
  const before = await runHook(JSON.stringify(pre), options);
  // The tool writes what it was allowed to (the agents' own tools, here by hand).
  writeFileSync(join(root, 'a.py'), content);
  const after = await runHook(JSON.stringify(post), options);
  return { before, after };
}

const ALLOW_ALL = { policy: { rules: [{ path: '**', action: 'allow' }] } };

describe.each(AGENTS)("$adapter.label's hook answer carries what the checks found", (agent) => {
  it('an allowed change that adds a syntax error: the model is told, before the tool or after it', async () => {
    const { before, after } = await call(agent, ALLOW_ALL, BROKEN);
    expect(denied(before), said(before)).toBe(false);
    const toModel = agent.adapter.contextBeforeTool ? said(before) : said(after);
    expect(toModel).toContain('Checks on this change found');
    expect(toModel).toContain(SYNTAX);
    // Said once: not again after the tool when it was said before.
    if (agent.adapter.contextBeforeTool) expect(said(after)).not.toContain(SYNTAX);
  });

  it('a change rule that denies: the reason names the rule and the error', async () => {
    const { before } = await call(
      agent,
      { policy: { rules: [{ path: '**', action: 'deny', change: { syntaxErrors: true } }] } },
      BROKEN,
    );
    expect(denied(before)).toBe(true);
    expect(said(before)).toContain('Policy does not allow this change to a.py');
    expect(said(before)).toContain(SYNTAX);
  });

  it('a rule on the tool that denies: the reason says what the checks found too', async () => {
    const { before } = await call(
      agent,
      { policy: { rules: [{ tool: agent.tool, action: 'deny' }] } },
      BROKEN,
    );
    expect(denied(before)).toBe(true);
    expect(said(before)).toContain('Policy does not allow');
    expect(said(before)).toContain(SYNTAX);
  });

  it('a secret asks past an allow rule (agent mode), masked: its value is in no answer', async () => {
    const token = fakeGithubToken();
    const content = `def f(x):\n    return x\nTOKEN = "${token}"\n`;
    const { before, after } = await call(agent, ALLOW_ALL, content, 'agent');
    expect(said(before)).toContain('a.py:3: Github token (ghp_****');
    expect(said(before)).toContain('Asked by secret:');
    expect(`${said(before)}${said(after)}`).not.toContain(token);
    expect(`${said(before)}${said(after)}`).not.toContain(token.slice(4));
  });
});

describe('the question in agent mode', () => {
  it("Claude Code's ask carries the change, why it is asked and each finding", async () => {
    const { before } = await call(
      AGENTS[0]!,
      {
        policy: {
          rules: [
            { path: '**', action: 'allow' },
            { path: '**/*.py', action: 'ask', change: { syntaxErrors: true } },
          ],
        },
      },
      BROKEN,
      'agent',
    );
    const out = JSON.parse(before.stdout).hookSpecificOutput;
    expect(out.permissionDecision).toBe('ask');
    expect(out.permissionDecisionReason).toMatch(/^editgate asks about this change to a\.py \(\+1 -1\)/);
    expect(out.permissionDecisionReason).toContain('! a.py:2: adds a syntax error: asked by rule');
    expect(out.permissionDecisionReason).toContain(`· ${SYNTAX}`);
  });

  it("the model hears the findings after the person said yes at the agent's own prompt", async () => {
    const { after } = await call(AGENTS[0]!, {}, BROKEN, 'agent');
    const out = JSON.parse(after.stdout).hookSpecificOutput;
    expect(out.additionalContext).toContain(SYNTAX);
  });
});
