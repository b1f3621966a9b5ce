import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  CallToolRequest,
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { formatBytes } from '../core/format-bytes.js';
import { describeCall } from '../tools/index.js';
import { type CallContext, runInCall } from './call-context.js';
import { callSummary, runningStatus } from './call-summary.js';
import { withoutClientKeys } from './client-keys.js';
import type { Logger } from './logger.js';
import { startProgress } from './progress.js';
import { failureResult, toCallToolResult } from './result.js';
import type { AskingCall } from './session-config-trust.js';
import type { SessionTools } from './session-tools.js';

export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface CallRunnerOptions {
  tools: SessionTools;
  /** Tools this session does not offer (tool-list.ts): a call to one is refused. */
  hidden: ReadonlySet<string>;
  maxInputBytes: number;
  /** The approver asks the client, so every call runs inside its call context (session-approver.ts). */
  elicits: boolean;
  /** Present while the config is untrusted: waited for before each call (session-config-trust.ts). */
  settleTrust?: (call: AskingCall) => Promise<string | undefined>;
  /** Where the client cannot show the diff: told with the first result (known-clients.ts). */
  clientNote: string | undefined;
  /** The client as the log names it: "claude-code 2.0.1". */
  client: string;
  log: Logger;
}

/**
 * One tool call from request to result: client-added keys dropped, size and read-only refusals, the call's
 * progress, the first-result notes, its log line. Never throws: the MCP layer's own failure is still a result.
 */
export function createCallRunner(
  options: CallRunnerOptions,
): (request: CallToolRequest, extra: CallExtra) => Promise<CallToolResult> {
  const { tools, hidden, maxInputBytes, elicits, settleTrust, client, log } = options;
  let clientNote = options.clientNote;
  let trustNoteGiven = false;

  // Each key a client injects is logged once per session, not on every call.
  const droppedKeys = new Set<string>();
  const dropClientKey = (key: string) => {
    if (droppedKeys.has(key)) return;
    droppedKeys.add(key);
    log.info(`ignoring "${key}", which ${client} adds to every tool call (not an editgate parameter)`);
  };

  async function call(request: CallToolRequest, extra: CallExtra): Promise<CallToolResult> {
    const { name } = request.params;
    const args = withoutClientKeys(
      request.params.arguments,
      dropClientKey,
    ) as typeof request.params.arguments;
    const size = Buffer.byteLength(JSON.stringify(args ?? {}));
    if (size > maxInputBytes) {
      log.info(`${name}: TOO_LARGE (${formatBytes(size)} of arguments)`);
      return failureResult(
        name,
        'TOO_LARGE',
        `The arguments are ${formatBytes(size)}, more than this server accepts (${formatBytes(maxInputBytes)}). Send less at once: edit_file or multi_edit with only the text that changes, or create a large file in parts (write_file, then edits that append).`,
        { size, limit: maxInputBytes },
      );
    }
    if (hidden.has(name)) {
      return failureResult(
        name,
        'DENIED_POLICY',
        'This editgate server is read-only (started with --approve deny): only read_file is available. Do not retry; tell the user if a change is needed.',
      );
    }
    const described = describeCall(name, args);
    const context: CallContext = {
      requestId: extra.requestId,
      signal: extra.signal,
      status: runningStatus(name, described),
    };
    const progress = startProgress(extra._meta?.progressToken, extra.sendNotification, () => context.status);
    context.onProgress = progress.onProgress;
    try {
      const trustNote = settleTrust ? await settleTrust(extra) : undefined;
      const set = await tools.get(extra.requestId);
      if (!('execute' in set)) return failureResult(name, set.code, set.message);
      // The request's signal fires when the client cancels the call: nothing is written after that.
      const run = () => set.execute(name, args ?? {}, { signal: extra.signal });
      // Only the elicitation prompt and progress (a call with a progress token) read the call's context.
      // Without them it is not entered: on Node 20 the first AsyncLocalStorage.run turns on async hooks
      // for every promise of the process from then on, a cost on each of the many awaits of an edit.
      const observed = elicits || extra._meta?.progressToken !== undefined;
      let result = await (observed ? runInCall(context, run) : run());
      // What a session review (editgate review --session) reverted, and why: with the next result, once.
      const reviewed = await set
        .gate()
        .then((gate) => gate.sessionLog?.takeNote())
        .catch(() => undefined);
      if (reviewed) result = { ...result, message: `${result.message}\n\n${reviewed}` };
      // The notes go with the session's first result only: the first call to finish takes each.
      if (trustNote !== undefined && !trustNoteGiven) {
        result = { ...result, message: `${trustNote}\n\n${result.message}` };
        trustNoteGiven = true;
      }
      if (clientNote !== undefined) {
        result = { ...result, message: `Tell the user: ${clientNote}\n\n${result.message}` };
        clientNote = undefined;
      }
      log.info(callSummary(name, described, result));
      return toCallToolResult(result);
    } finally {
      progress.stop();
    }
  }

  return async (request, extra) => {
    try {
      return await call(request, extra);
    } catch (error) {
      // execute never throws; this is the MCP layer's own failure, still shown as a tool result.
      const text = error instanceof Error ? error.message : String(error);
      log.error(`${request.params.name}: unexpected error: ${text}`);
      return failureResult(
        request.params.name,
        'IO',
        `unexpected error in the editgate MCP server: ${text}. Nothing was written. If this persists, tell the user.`,
      );
    }
  };
}
