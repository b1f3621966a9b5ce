import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  isInitializeRequest,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  RootsListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createEditTools } from '../tools/index.js';
import { packageVersion } from '../tools/version.js';
import { newSessionId } from '../workspace/session-log.js';
import { chooseApprovalMode } from './approval-mode.js';
import { currentCall } from './call-context.js';
import { createCallRunner } from './call-runner.js';
import { serverInstructions } from './instructions.js';
import { clientAdvice, knownClient } from './known-clients.js';
import { type Logger, sessionLogger } from './logger.js';
import { DEFAULT_READ_PAGE_CHARS, type McpServeOptions } from './options.js';
import { sessionApprover } from './session-approver.js';
import { configTrustAtFirstCall } from './session-config-trust.js';
import { SessionTools } from './session-tools.js';
import { sessionToolList } from './tool-list.js';

/**
 * One client session's MCP server, built from the client's first message (initialize): the approval mode,
 * the tool list and the instructions depend on the capabilities it declares. The parts live in their own
 * files: who approves (session-approver.ts), what is offered (tool-list.ts), one call run and logged
 * (call-runner.ts), the config trust question (session-config-trust.ts).
 */
export function createSessionServer(
  first: JSONRPCMessage,
  options: McpServeOptions,
  label = 'client',
): Server {
  const init = isInitializeRequest(first) ? first.params : undefined;
  const known = knownClient(init?.clientInfo.name);
  const approval = chooseApprovalMode(options.approve, init?.capabilities, known);
  const server = new Server(
    { name: 'editgate', title: 'editgate', version: packageVersion() },
    {
      capabilities: { tools: {}, logging: {} },
      instructions: serverInstructions(options.roots, approval, options.changeTtlMs),
    },
  );
  const log: Logger = sessionLogger(options.log, (params) => server.sendLoggingMessage(params));
  const client = init ? `${init.clientInfo.name} ${init.clientInfo.version}` : 'an unnamed client';
  (approval.unavailable ? log.warn : log.info)(
    `${label} ${client}: approval mode ${approval.mode} (${approval.why})`,
  );
  // Where the client cannot show the diff: said at start-up, and with the first result (call-runner.ts).
  const clientNote = clientAdvice(known, approval);
  if (clientNote) log.warn(clientNote);

  const { approve, elicits } = sessionApprover(approval, options, server, known);
  // The config in force: replaced, whole, when the person trusts it at the first call (configTrustAtFirstCall).
  let config = options.config;
  // One client connection is one session (its changes logged for editgate review --session), whatever
  // tool sets its roots or a newly trusted config build for it.
  const sessionId = newSessionId('mcp');
  const tools = new SessionTools({
    configuredRoots: options.roots,
    useClientRoots: options.useClientRoots,
    clientHasRoots: () => Boolean(server.getClientCapabilities()?.roots),
    listRoots: async (relatedRequestId) => (await server.listRoots(undefined, { relatedRequestId })).roots,
    log,
    build: (roots) =>
      createEditTools({
        ...config.options,
        stateDir: config.options.stateDir ?? options.stateDir,
        root: roots,
        // Narrowed to the client's roots, rules still match as written: relative to the configured roots.
        ruleRoots: options.roots,
        approve,
        mode: approval.mode === 'preview' ? 'preview' : 'apply',
        stagedTtlMs: options.changeTtlMs,
        readPageChars: options.readPageChars ?? DEFAULT_READ_PAGE_CHARS,
        sessionLog: { id: sessionId, face: 'mcp', label: client },
        // One tool set serves every call of the session: progress goes to the call whose work it is.
        onProgress: (event) => currentCall()?.onProgress?.(event),
      }),
  });
  const { listed, hidden } = sessionToolList(tools.definitions, approval);

  const settleTrust =
    options.config.trust?.notice !== undefined
      ? configTrustAtFirstCall(server, options, log, (trusted) => {
          config = trusted;
          tools.rebuild();
        })
      : undefined;
  const runCall = createCallRunner({
    tools,
    hidden,
    maxInputBytes: options.maxInputBytes,
    elicits,
    settleTrust,
    clientNote,
    client,
    log,
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => tools.rootsChanged());
  // Registered through Protocol's setRequestHandler, which parses the request with CallToolRequestSchema,
  // not through Server's override, which parses it with that schema a second time and then the result with
  // CallToolResultSchema (a zod pass each, on every call). Ours are always built by toCallToolResult or
  // failureResult, which the schema takes unchanged (test/mcp/result.test.ts), and a call asking for a task
  // is refused by the Protocol before any handler (this server declares no tasks).
  Protocol.prototype.setRequestHandler.call(server, CallToolRequestSchema, runCall);
  return server;
}
