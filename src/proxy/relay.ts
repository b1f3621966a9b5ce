/**
 * Passing a request on, in either direction, with what belongs to it: the caller's cancellation (the
 * request handler's signal; the SDK then sends notifications/cancelled onwards) and progress (the SDK
 * gives the forwarded request a progress token of its own; each notification that comes back for it is
 * sent to the caller under the caller's token). Nothing of ours times a request out: the caller's own
 * timeout, and its cancellation, decide.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ErrorCode,
  McpError,
  type Notification,
  type Progress,
  type Result,
  ResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { NO_TIMEOUT, type UpstreamLink, UpstreamUnavailable } from './upstream.js';

export interface RelayedRequest {
  method: string;
  params?: Record<string, unknown>;
}

// biome-ignore lint/suspicious/noExplicitAny: the extra of a handler on either side (client or server).
type AnyExtra = RequestHandlerExtra<any, any>;

/** The progress callback that passes notifications back under the caller's own token, if it gave one. */
export function progressBack(
  request: RelayedRequest,
  extra: AnyExtra,
): ((progress: Progress) => void) | undefined {
  const token = (request.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
  if (typeof token !== 'string' && typeof token !== 'number') return undefined;
  return (progress) => {
    extra
      .sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken: token } })
      .catch(() => {
        // The caller went away; its request ends with it.
      });
  };
}

/** A client's request, passed to the upstream server. A lost server becomes an MCP error that says so. */
export async function relayToServer(
  link: UpstreamLink,
  request: RelayedRequest,
  extra: AnyExtra,
): Promise<Result> {
  try {
    return await link.request(
      { method: request.method, params: request.params },
      { signal: extra.signal, onprogress: progressBack(request, extra) },
    );
  } catch (error) {
    if (error instanceof UpstreamUnavailable) throw new McpError(ErrorCode.InternalError, error.message);
    throw error;
  }
}

/** A request of the upstream server's (sampling, elicitation, roots), passed to the client once it is ready. */
export async function relayToClient(
  server: Server,
  ready: Promise<void>,
  request: RelayedRequest,
  extra: AnyExtra,
): Promise<Result> {
  await ready;
  return server.request(
    { method: request.method, params: request.params } as Parameters<Server['request']>[0],
    ResultSchema,
    {
      signal: extra.signal,
      timeout: NO_TIMEOUT,
      onprogress: progressBack(request, extra),
    },
  );
}

/** A notification as the SDK's `notification` methods take it. */
export function asNotification<T>(notification: Notification): T {
  return {
    method: notification.method,
    ...(notification.params ? { params: notification.params } : {}),
  } as T;
}
