import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../built-cli.js';

/** An agent as test/agents/pinned-agents.json pins it. */
export interface PinnedAgent {
  package: string;
  version: string;
  bin: string;
}

export type AgentName = 'claude-code' | 'codex' | 'gemini-cli' | 'opencode' | 'qwen-code';

export const PINNED: Record<AgentName, PinnedAgent> = JSON.parse(
  readFileSync(join(REPO, 'test', 'agents', 'pinned-agents.json'), 'utf8'),
);

/** Where scripts/install-agents.mjs installs: $EDITGATE_AGENTS_DIR, else ~/.cache/editgate-agents. */
export function agentsCache(): string {
  return process.env.EDITGATE_AGENTS_DIR || join(homedir(), '.cache', 'editgate-agents');
}

/**
 * The agent's command, installed at its pinned version (scripts/install-agents.mjs runs when it is missing;
 * it is a no-op when the agent is there). Throws with the installer's message when it cannot be installed.
 */
export function installedAgent(name: AgentName): string {
  const { version, bin } = PINNED[name];
  const folder = join(agentsCache(), `${name}@${version}`);
  if (!existsSync(join(folder, '.installed'))) {
    execFileSync(process.execPath, [join(REPO, 'scripts', 'install-agents.mjs'), name], { stdio: 'pipe' });
  }
  return join(folder, 'node_modules', '.bin', bin);
}
