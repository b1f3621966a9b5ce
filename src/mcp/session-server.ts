import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  isInitializeRequest,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  RootsListChangedNotificationSchema,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { formatBytes } from '../core/format-bytes.js';
import type { Approver } from '../gate/approval.js';
import { describeRule } from '../gate/describe-rule.js';
import { nobodyToAsk } from '../gate/no-approver.js';
import { type ChangeDetails, changeDetailsOf, changedLines } from '../tools/details.js';
import { type CallDescription, createEditTools, describeCall } from '../tools/index.js';
import type { ToolResult } from '../tools/result.js';
import { titlePath } from '../tools/tool.js';
import { type ApprovalMode, chooseApprovalMode, supportsFormElicitation } from './approval-mode.js';
import { type CallContext, currentCall, runInCall } from './call-context.js';
import { elicitationApprover } from './elicit.js';
import { serverInstructions } from './instructions.js';
import { type Logger, sessionLogger } from './logger.js';
import type { McpServeOptions } from './options.js';
import { outputSchemaFor } from './output-schema.js';
import { startProgress } from './progress.js';
import { failureResult, toCallToolResult } from './result.js';
import { SessionTools } from './session-tools.js';

type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

let version: string | undefined;
function serverVersion(): string {
  version ??= (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
  return version;
}

/**
 * The approver of a mode where no person can be asked: every question is refused as DENIED_NO_APPROVER
 * (gate/no-approver.ts), saying why no one could be asked in this mode. No one said no.
 */
function noOneToAsk(approval: ApprovalMode): Approver {
  return nobodyToAsk(() => {
    if (approval.unavailable)
      return "this client cannot show editgate's approval prompt (it does not support MCP elicitation), and editgate was started with --approve elicit";
    switch (approval.mode) {
      case 'policy':
        return 'no policy rule allows it, and this server runs with --approve policy: only what an "allow" rule in editgate.config.json covers is done';
      case 'deny':
        return 'this editgate server is read-only (--approve deny)';
      case 'web':
        return 'it needs approval on the web review page, which is not running';
      default:
        return "the policy asks first, and this client cannot show editgate's approval prompt (preview mode)";
    }
  });
}

/** A call's log line: the tool, the paths it names (as the tool describes the call), what became of it. */
function summary(name: string, call: CallDescription, result: ToolResult): string {
  const on = call.paths.length > 0 ? ` ${pathList(call.paths)}` : '';
  if (!result.ok) return `${name}: ${result.code}${on && ` on${on}`}`;
  const d = changeDetailsOf(name, result);
  if (!d) return `${name}${on}`;
  const { added, removed } = changedLines(d);
  const counts = `+${added} -${removed}`;
  if (d.changeId) return `${name}${on} ${counts}: staged as change ${d.changeId}`;
  if (!d.written) return `${name}${on}: no change`;
  return `${name}${on} ${counts}: written (${d.decision}, by ${decider(d)})`;
}

/** Who decided, as a log line names it: "policy (rule edit_file on src/** → allow)", "auto (--yes)". */
function decider(d: ChangeDetails): string {
  const by = String(d.decidedBy);
  if (by === 'policy' && d.rule) return `policy (rule ${describeRule(d.rule)})`;
  if (by === 'session' && d.grant) return `session (grant: ${d.grant === 'all' ? 'all edits' : 'this file'})`;
  if (by === 'auto' && d.auto) return `auto (${d.auto})`;
  return by;
}

/** A call as its progress messages name it: "running edit_file on src/app.ts". */
function runningStatus(name: string, call: CallDescription): string {
  return `running ${name}${call.paths.length > 0 ? ` on ${pathList(call.paths)}` : ''}`;
}

/** A call's paths in one line: the first three, then how many more (a patch may name hundreds). */
function pathList(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).map(titlePath).join(', ');
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}

/**
 * One client session's MCP server, built from the client's first message (initialize): the approval mode,
 * the tool list and the instructions depend on the capabilities it declares.
 */
export function createSessionServer(
  first: JSONRPCMessage,
  options: McpServeOptions,
  label = 'client',
): Server {
  const init = isInitializeRequest(first) ? first.params : undefined;
  const approval = chooseApprovalMode(options.approve, init?.capabilities);
  const server = new Server(
    { name: 'editgate', title: 'editgate', version: serverVersion() },
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

  const onPage = approval.mode === 'web' && options.webApprover !== undefined;
  const asksPerson = (approval.mode === 'elicit' && !approval.unavailable) || onPage;
  // The approver that reads the call being served (currentCall) to send its question with that call.
  const elicits = asksPerson && !onPage;
  const approve: Approver = onPage
    ? options.webApprover!
    : elicits
      ? elicitationApprover(
          (params, request) => server.elicitInput(params, request),
          options.approvalTimeoutMs,
        )
      : noOneToAsk(approval);
  // The config in force: replaced, whole, when the person trusts it at the first call (settleTrust).
  let config = options.config;
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
        // One tool set serves every call of the session: progress goes to the call whose work it is.
        onProgress: (event) => currentCall()?.onProgress?.(event),
      }),
  });

  // Read-only: the change tools are not offered at all, and a call to one (from a stale list) is refused.
  const hidden = new Set(
    approval.mode === 'deny'
      ? tools.definitions.filter((tool) => !tool.annotations.readOnlyHint).map((tool) => tool.name)
      : [],
  );
  const listed: Tool[] = tools.definitions
    .filter((tool) => !hidden.has(tool.name))
    .map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema as Tool['inputSchema'],
      outputSchema: outputSchemaFor(tool.name) as Tool['outputSchema'],
      annotations: { title: tool.title, ...tool.annotations },
    }));

  /**
   * An untrusted config is asked about at the session's first tool call, not at start-up (the question's
   * module is loaded only then): every call waits for that one answer. Its note (what was ignored, and how
   * to trust it) goes with the first result only.
   */
  let trustSettled: Promise<void> | undefined;
  let trustNote: string | undefined;
  const settleTrust = (extra: CallExtra) =>
    (trustSettled ??= (async () => {
      const { settleConfigTrust } = await import('./config-trust-question.js');
      const answer = await settleConfigTrust({
        loaded: options.config,
        root: options.roots[0]!,
        ...(supportsFormElicitation(server.getClientCapabilities()) && {
          elicit: (params) =>
            server.elicitInput(params, {
              relatedRequestId: extra.requestId,
              signal: extra.signal,
              timeout: options.approvalTimeoutMs,
            }),
        }),
        log,
      });
      if (answer.config) {
        config = answer.config;
        tools.rebuild();
      }
      trustNote = answer.note;
    })());

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => tools.rootsChanged());

  async function call(request: CallToolRequest, extra: CallExtra): Promise<CallToolResult> {
    const { name, arguments: args } = request.params;
    const size = Buffer.byteLength(JSON.stringify(args ?? {}));
    if (size > options.maxInputBytes) {
      log.info(`${name}: TOO_LARGE (${formatBytes(size)} of arguments)`);
      return failureResult(
        name,
        'TOO_LARGE',
        `The arguments are ${formatBytes(size)}, more than this server accepts (${formatBytes(options.maxInputBytes)}). Send less at once: edit_file or multi_edit with only the text that changes, or create a large file in parts (write_file, then edits that append).`,
        { size, limit: options.maxInputBytes },
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
      if (options.config.trust?.notice !== undefined) await settleTrust(extra);
      const set = await tools.get(extra.requestId);
      if (!('execute' in set)) return failureResult(name, set.code, set.message);
      // The request's signal fires when the client cancels the call: nothing is written after that.
      const run = () => set.execute(name, args ?? {}, { signal: extra.signal });
      // Only the elicitation prompt and progress (a call with a progress token) read the call's context.
      // Without them it is not entered: on Node 20 the first AsyncLocalStorage.run turns on async hooks
      // for every promise of the process from then on, a cost on each of the many awaits of an edit.
      const observed = elicits || extra._meta?.progressToken !== undefined;
      let result = await (observed ? runInCall(context, run) : run());
      if (trustNote !== undefined) {
        result = { ...result, message: `${trustNote}\n\n${result.message}` };
        trustNote = undefined;
      }
      log.info(summary(name, described, result));
      return toCallToolResult(result);
    } finally {
      progress.stop();
    }
  }

  // Registered through Protocol's setRequestHandler, which parses the request with CallToolRequestSchema,
  // not through Server's override, which parses it with that schema a second time and then the result with
  // CallToolResultSchema (a zod pass each, on every call). Ours are always built by toCallToolResult or
  // failureResult, which the schema takes unchanged (test/mcp/result.test.ts), and a call asking for a task
  // is refused by the Protocol before any handler (this server declares no tasks).
  Protocol.prototype.setRequestHandler.call(server, CallToolRequestSchema, async (request, extra) => {
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
  });
  return server;
}
