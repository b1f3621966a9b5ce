/**
 * `editgate mcp` as one module: the entry scripts/bundle-mcp.mjs builds into dist/cli/mcp-server.bundle.mjs
 * (every module the server loads, editgate's and its dependencies', in one file). An MCP client starts the
 * server for every session, and loading some 300 files one by one was most of its start-up (issue #12).
 * The signal cleanup is set up here, not by main.ts: the bundle has its own copy of the module that tracks
 * temp files, so the copy that writes them must be the one that removes them.
 */
import { removeLeftoversOnSignals } from '../workspace/exit-cleanup.js';
import { run as runMcp } from './commands/mcp.js';

export async function run(args: string[]): Promise<number> {
  removeLeftoversOnSignals();
  return runMcp(args);
}
