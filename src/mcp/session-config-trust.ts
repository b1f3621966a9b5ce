import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { LoadedConfig } from '../tools/config.js';
import { supportsFormElicitation } from './approval-mode.js';
import type { Logger } from './logger.js';
import type { McpServeOptions } from './options.js';

/** The tool call that asks the trust question: the question travels with it and is cancelled with it. */
export interface AskingCall {
  requestId: RequestId;
  signal: AbortSignal;
}

/**
 * An untrusted config is asked about at the session's first tool call, not at start-up (the question's
 * module is loaded only then): every call waits for that one answer. The answer resolves to its note (what
 * was ignored, and how to trust it), which goes with the first result only (call-runner.ts); a config the
 * person trusts is handed to onTrusted before any call runs.
 */
export function configTrustAtFirstCall(
  server: Server,
  options: McpServeOptions,
  log: Logger,
  onTrusted: (config: LoadedConfig) => void,
): (call: AskingCall) => Promise<string | undefined> {
  let settled: Promise<string | undefined> | undefined;
  return (call) =>
    (settled ??= (async () => {
      const { settleConfigTrust } = await import('./config-trust-question.js');
      const answer = await settleConfigTrust({
        loaded: options.config,
        root: options.roots[0]!,
        ...(supportsFormElicitation(server.getClientCapabilities()) && {
          elicit: (params) =>
            server.elicitInput(params, {
              relatedRequestId: call.requestId,
              signal: call.signal,
              timeout: options.approvalTimeoutMs,
            }),
        }),
        log,
      });
      if (answer.config) onTrusted(answer.config);
      return answer.note;
    })());
}
