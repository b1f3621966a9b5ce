/**
 * The agents editgate has hooks for, each loaded only when named: the hook process (started by the agent for
 * every tool call) loads one adapter and nothing of the others. Adding an agent is a file in agents/ that
 * exports `adapter` (adapter.ts) and `installer` (install.ts), and its line here.
 */
import type { AgentId, HookAdapter } from './adapter.js';
import type { HookInstaller } from './install.js';
import type { HookApproveMode } from './runner.js';

export interface HookAgent {
  adapter: HookAdapter;
  installer: HookInstaller;
}

export interface HookAgentEntry {
  /** As people name it. */
  label: string;
  /** The mode `editgate hooks install` writes when none is given (the agent can ask itself, or not). */
  defaultApprove: HookApproveMode;
  load(): Promise<HookAgent>;
}

export const HOOK_AGENTS: Partial<Record<AgentId, HookAgentEntry>> = {
  'claude-code': {
    label: 'Claude Code',
    defaultApprove: 'agent',
    load: () => import('./agents/claude-code.js'),
  },
  codex: {
    label: 'Codex',
    // Codex's hooks cannot hand a question to its own prompt (no "ask"): the review page asks.
    defaultApprove: 'web',
    load: () => import('./agents/codex.js'),
  },
  'gemini-cli': {
    label: 'Gemini CLI',
    // Gemini CLI's "ask" makes it ask its person in its own prompt, diff and all.
    defaultApprove: 'agent',
    load: () => import('./agents/gemini-cli.js'),
  },
  'qwen-code': {
    label: 'Qwen Code',
    // Qwen Code's "ask" brings back its own confirmation (a headless run, which cannot ask, refuses).
    defaultApprove: 'agent',
    load: () => import('./agents/qwen-code.js'),
  },
  opencode: {
    label: 'OpenCode',
    // An OpenCode plugin cannot hand a question to OpenCode's prompt: the review page asks.
    defaultApprove: 'web',
    load: () => import('./agents/opencode.js'),
  },
};

/** The agent named on a command line, or undefined (the caller lists the known ones). */
export function hookAgent(name: string): HookAgentEntry | undefined {
  return Object.hasOwn(HOOK_AGENTS, name) ? HOOK_AGENTS[name as AgentId] : undefined;
}

export function hookAgentNames(): string[] {
  return Object.keys(HOOK_AGENTS);
}
