import { existsSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { REPO } from '../built-cli.js';
import { answerOnPage } from '../web/page-api.js';
import { isolation } from './run-agent.js';
import type { AgentWorkspace } from './workspace.js';

const BRIDGE = join(REPO, 'test', 'agents', 'web-bridge.mjs');

/**
 * An editgate command that asks on its review page (`--approve web`), run by the agent inside its network
 * namespace, and the test's way to answer on that page from outside: the command runs under
 * web-bridge.mjs, which publishes the page's link and a Unix socket to its port; `answer` forwards the same
 * port on this side's 127.0.0.1 to that socket (so the link, its Host and Origin hold as they are) and
 * decides the first waiting change through the page's JSON API, as the page's script does.
 */
export interface WebApprovalRun {
  /** The workspace with editgate's server replaced by `editgateArgs` under the bridge, without the allow-all config. */
  workspace: AgentWorkspace;
  /** Waits for the page, then answers the first waiting change; resolves with the HTTP status of the answer. */
  answer(decision: Record<string, unknown>, timeoutMs?: number): Promise<number>;
  close(): void;
}

export function webApprovalRun(workspace: AgentWorkspace, editgateArgs: string[]): WebApprovalRun {
  const linkFile = join(workspace.folder, 'review-link.txt');
  const socket = join(workspace.folder, 'review.sock');
  // Every change is asked: no policy rule allows it.
  rmSync(join(workspace.root, 'editgate.config.json'), { force: true });
  let forwarder: Server | undefined;
  const bridged: AgentWorkspace = {
    ...workspace,
    editgate: {
      command: process.execPath,
      args: [BRIDGE, linkFile, socket, '--', process.execPath, ...editgateArgs],
      env: workspace.editgate.env,
    },
  };
  return {
    workspace: bridged,
    async answer(decision, timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      while (!existsSync(linkFile)) {
        if (Date.now() > deadline) throw new Error('the review page never published its link');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const link = readFileSync(linkFile, 'utf8');
      if (isolation() === 'namespace' && !forwarder) {
        const port = Number(new URL(link).port);
        forwarder = createServer((outside) => {
          const inside = connect(socket);
          outside.pipe(inside).pipe(outside);
          outside.on('error', () => inside.destroy());
          inside.on('error', () => outside.destroy());
        });
        await new Promise<void>((resolve, reject) => {
          forwarder!.once('error', reject);
          forwarder!.listen(port, '127.0.0.1', () => resolve());
        });
      }
      const { answer } = await answerOnPage(link, decision);
      return answer.status;
    },
    close() {
      forwarder?.close();
    },
  };
}
