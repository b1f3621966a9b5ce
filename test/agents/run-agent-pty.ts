import { type PtyRun, spawnInPty } from '../cli/pty.js';
import type { ScriptedModel } from './fake-models/server.js';
import { type AgentCommand, isolatedCommand } from './run-agent.js';

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
