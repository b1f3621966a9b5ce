import { join } from 'node:path';
import { type PtyRun, spawnCli } from '../../cli/pty.js';
import type { cliWorkspace } from '../../cli/run-cli.js';
import type { FakeModelServer } from '../fake-model-server.js';

/** The prompt's hint line: the chat is ready for a message. */
export const CHAT_READY = '/help for commands and keys';

/**
 * The built `editgate chat` in a real pty, talking to the fake model server (OpenAI-compatible), its state
 * and config folders inside the workspace. The caller kills the run.
 */
export function startChat(
  ws: ReturnType<typeof cliWorkspace>,
  server: FakeModelServer,
  options: { flags?: string[]; cols?: number; rows?: number; env?: Record<string, string> } = {},
): PtyRun {
  return spawnCli(
    ['chat', '--model', 'openai-compatible/fake', '--base-url', server.baseURL, ...(options.flags ?? [])],
    {
      cwd: ws.root,
      stateDir: ws.stateDir,
      cols: options.cols ?? 80,
      rows: options.rows ?? 40,
      env: {
        XDG_CONFIG_HOME: join(ws.stateDir, '..', 'config'),
        ...options.env,
      },
    },
  );
}
