import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { CreateEditToolsOptions } from '../tools/index.js';

/**
 * The tool call being served. The Approver the gate calls knows only the change; requests it sends to the
 * client (an elicitation) must name the tool call they belong to, so that over Streamable HTTP they travel
 * on that call's response stream, and must be cancelled with it. Parallel calls each see their own.
 */
export interface CallContext {
  requestId: RequestId;
  signal: AbortSignal;
  /** What the call is doing now, for progress notifications ("waiting for approval of src/a.ts"). */
  status: string;
  /**
   * Where the tools' progress on a huge file goes while this call runs. The tool set is shared by the
   * session's calls, so its onProgress looks up the current call (progress.ts turns it into notifications).
   */
  onProgress?: CreateEditToolsOptions['onProgress'];
}

const storage = new AsyncLocalStorage<CallContext>();

export function runInCall<T>(context: CallContext, fn: () => Promise<T>): Promise<T> {
  return storage.run(context, fn);
}

export function currentCall(): CallContext | undefined {
  return storage.getStore();
}
