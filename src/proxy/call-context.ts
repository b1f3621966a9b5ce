import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * The client's tool call being served. The gate asks its Approver about a change and nothing else; the
 * question sent to the client must go with the call it is about (cancelling the call withdraws it) and say
 * how editgate knows what the tool writes. Parallel calls each see their own.
 */
export interface ProxyCall {
  requestId: RequestId;
  signal: AbortSignal;
  /** How editgate knows what the tool writes (a tool class's basis), said with the diff. */
  basis?: string;
  /** What else the person must know with the diff (e.g. that the server changes the encoding). */
  notes: string[];
  /** A read-only call: a question about reading a file is about the call itself, not about a diff. */
  reads?: boolean;
}

const storage = new AsyncLocalStorage<ProxyCall>();

export function runInCall<T>(call: ProxyCall, fn: () => Promise<T>): Promise<T> {
  return storage.run(call, fn);
}

export function currentCall(): ProxyCall | undefined {
  return storage.getStore();
}
