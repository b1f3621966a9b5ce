import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN } from '../built-cli.js';

/**
 * A world of its own for one agent run: a HOME (and XDG folders) the agent writes its config and state in,
 * the project root editgate serves, and editgate's state folder (trust records, undo history). Nothing of
 * the person's own HOME is seen by the agent or by editgate.
 */
export interface AgentWorkspace {
  folder: string;
  home: string;
  root: string;
  state: string;
  /** HOME and XDG variables pointing into the workspace. */
  homeEnv: Record<string, string>;
  /** editgate's MCP server as the agent starts it: command, arguments, environment. */
  editgate: { command: string; args: string[]; env: Record<string, string> };
  remove(): void;
}

/**
 * The workspace, with an editgate.config.json in the root that allows every change by policy, trusted (as
 * `editgate trust ROOT` records it), and editgate's MCP server run with `--approve policy`: one-shot agent
 * modes cannot answer an elicitation, so the rules decide and no one is asked.
 */
export function makeWorkspace(label: string): AgentWorkspace {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), `editgate-agent-${label}-`)));
  const home = join(folder, 'home');
  const root = join(folder, 'project');
  const state = join(folder, 'editgate-state');
  for (const dir of [home, root, state]) mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(root, 'editgate.config.json'),
    `${JSON.stringify({ policy: { rules: [{ path: '**', action: 'allow' }] } }, null, 2)}\n`,
  );
  const stateEnv = { EDITGATE_STATE_DIR: state };
  execFileSync(process.execPath, [MAIN, 'trust', root, '--yes'], {
    env: { ...process.env, ...stateEnv },
    stdio: 'pipe',
  });
  const homeEnv = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
  };
  return {
    folder,
    home,
    root,
    state,
    homeEnv,
    editgate: {
      command: process.execPath,
      args: [MAIN, 'mcp', root, '--approve', 'policy'],
      env: stateEnv,
    },
    // An agent may leave a daemon of its own running from the folder (Codex 0.171.0's app-server, in a
    // session of its own, so ending the agent's process group misses it), which writes there: it ends
    // first. Its last writes can still land while the folder is being removed: retried.
    remove: () => {
      endProcessesRunFrom(folder);
      rmSync(folder, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

/** Kills every process whose program lies in `folder` (Linux: /proc), and waits a moment for them to go. */
function endProcessesRunFrom(folder: string): void {
  let names: string[];
  try {
    names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return;
  }
  const running = names.filter((name) => {
    try {
      return readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0')[0]!.startsWith(`${folder}/`);
    } catch {
      return false;
    }
  });
  for (const pid of running) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  if (running.length > 0) execFileSync('sleep', ['0.2']);
}
