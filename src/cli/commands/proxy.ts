// `editgate proxy`: wraps another MCP server so that each of its writes is shown as a diff and asked about
// before it happens. Parses the command line, loads the config once, and serves the client over stdio
// until it goes away or a signal arrives.
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isEditgateError } from '../../core/errors.js';
import { APPROVE_MODES, type ApproveMode } from '../../proxy/approvals.js';
import { parseOverrides } from '../../proxy/overrides.js';
import { serveProxy } from '../../proxy/serve.js';
import type { ProxyLog, ProxyLogLevel } from '../../proxy/session.js';
import { httpUpstream, stdioUpstream, type UpstreamConnector } from '../../proxy/upstream.js';
import { loadConfig } from '../../tools/config.js';
import { createEditTools } from '../../tools/index.js';
import { stateDirFor } from '../../tools/state-dir.js';
import type { RunningReview, WebApproval } from '../../web/web-approval.js';
import { proxyTerminal } from '../proxy-terminal.js';
import { defaultStateDir } from '../state-dir.js';
import { parseCommandLine, UsageError } from '../usage.js';
import { findWebReview, openWebReview } from '../web-review.js';

const HELP = `Usage: editgate proxy [--root DIR]... [options] -- COMMAND [ARGS...]
       editgate proxy [--root DIR]... [options] --upstream URL

Put editgate in front of another MCP server: the client talks to editgate proxy, which starts the server
(COMMAND ARGS, over stdio) or connects to it (--upstream, Streamable HTTP) and relays everything both ways.
Before a call of one of its tools writes a file, you see the diff and are asked; afterwards the file is
compared with what you approved, and \`editgate undo FILE\` puts back what was there before.

  - The reference filesystem server's tools are known by name and schema (edit_file is previewed with
    the server's own dryRun); other servers' tools by the shape of their arguments: a path and the whole
    content, a path and old/new text, a path and a patch. Tools marked read-only pass unasked.
  - Any other tool that may change something is asked about with a card: the tool, the server and the
    arguments, with "allow this tool for the session" but never a per-file grant.
  - Files outside the roots, or matching the config's "deny" globs, are refused; the config's policy
    rules, hooks and audit log apply as to editgate's own tools (hooks see a card's call too: its tool,
    server, arguments and paths). A denial is an error result with the reason, for the model to read.

Options:
  --root DIR             a workspace root (repeat for more; default: the current folder); writes
                         elsewhere are refused. The first root's editgate.config.json applies.
  --upstream URL         the server is at this Streamable HTTP address (instead of -- COMMAND)
  --header 'NAME: VALUE' an HTTP header for --upstream (repeatable), e.g. an Authorization header
  --approve MODE         who is asked (default auto):
                           auto      the client (MCP elicitation) if it can show a form, else, for
                                     writes, the review page of an \`editgate review\` running
                                     for the root (looked for at each question), else the call is
                                     refused with advice.
                                     Never the terminal: the client that starts the proxy owns it
                           elicit    the client only
                           terminal  the terminal the client was started from, only: for clients
                                     that leave it free (not inside a full-screen client)
                           web       writes on the web review page (its link is logged; --open opens
                                     it); other calls through the client, else refused. Never
                                     the terminal
                           policy    no one: only what the config's "allow" rules cover goes ahead
  --config FILE          use this config file instead of ROOT/editgate.config.json
  --log-level LEVEL      stderr logging: debug, info, warning, error (default info)
  --open                 with --approve web, open the review page in your browser
  --no-color, --theme THEME   for questions at the terminal (dark, light or auto)
  -h, --help             show this help

Config (the "proxy" key of editgate.config.json), for tools editgate cannot work out itself:
  "proxy": { "tools": [
    { "tool": "save_note", "write": { "path": "file", "content": "body" } },
    { "tool": "replace", "write": { "path": "file", "old": "find", "new": "with" } },
    { "tool": "lookup", "readOnly": true },  { "server": "docs", "tool": "render", "ask": true } ] }
`;

const OPTIONS = {
  upstream: { type: 'string' },
  header: { type: 'string', multiple: true },
  approve: { type: 'string' },
  'log-level': { type: 'string' },
} as const;

const LEVELS: readonly ProxyLogLevel[] = ['debug', 'info', 'warning', 'error'];

/** `--root DIR` and `--root=DIR`, any number of them, taken out of the editgate part of the line. */
function takeRoots(args: string[]): { roots: string[]; rest: string[] } {
  const roots: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--root') {
      const value = args[++i];
      if (value === undefined || value.startsWith('-')) throw new UsageError('--root needs a folder');
      roots.push(value);
    } else if (arg.startsWith('--root=')) roots.push(arg.slice('--root='.length));
    else rest.push(arg);
  }
  return { roots, rest };
}

function parseHeaders(values: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(value);
    if (!match) throw new UsageError(`--header must be "NAME: VALUE" (got "${value}")`);
    headers[match[1]!] = match[2]!;
  }
  return headers;
}

function stderrLog(minimum: ProxyLogLevel): ProxyLog {
  return (level, message) => {
    if (LEVELS.indexOf(level) < LEVELS.indexOf(minimum)) return;
    process.stderr.write(`editgate proxy: ${level === 'info' ? '' : `${level}: `}${message}\n`);
  };
}

interface Parsed {
  roots: string[];
  upstream: UpstreamConnector;
  approve: ApproveMode;
  logLevel: ProxyLogLevel;
  config?: string;
  display: { noColor: boolean; theme: 'dark' | 'light' | 'auto' };
  /** --open: with --approve web, open the review page in the browser. */
  open: boolean;
}

function parse(args: string[]): Parsed | 'help' {
  const split = args.indexOf('--');
  const command = split === -1 ? [] : args.slice(split + 1);
  const { roots, rest } = takeRoots(split === -1 ? args : args.slice(0, split));
  const line = parseCommandLine(rest, OPTIONS, ['config', 'no-color', 'theme', 'open']);
  if (line.help) return 'help';
  if (line.positionals.length > 0) {
    throw new UsageError(
      `unexpected ${line.positionals[0]}: the server's command goes after --, as in editgate proxy -- npx -y @modelcontextprotocol/server-filesystem DIR`,
    );
  }
  const approve = line.values.approve ?? 'auto';
  if (!(APPROVE_MODES as readonly string[]).includes(approve)) {
    throw new UsageError(`--approve must be one of ${APPROVE_MODES.join(', ')} (got "${approve}")`);
  }
  const logLevel = line.values['log-level'] ?? 'info';
  if (!(LEVELS as readonly string[]).includes(logLevel)) {
    throw new UsageError(`--log-level must be one of ${LEVELS.join(', ')} (got "${logLevel}")`);
  }
  const headers = (line.values.header ?? []) as unknown as string[];
  let upstream: UpstreamConnector;
  if (line.values.upstream !== undefined) {
    if (command.length > 0) throw new UsageError('give either --upstream URL or -- COMMAND, not both');
    let url: URL;
    try {
      url = new URL(line.values.upstream);
    } catch {
      throw new UsageError(`--upstream must be an http:// or https:// URL (got "${line.values.upstream}")`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UsageError(`--upstream must be an http:// or https:// URL (got "${line.values.upstream}")`);
    }
    upstream = httpUpstream(url, parseHeaders(headers));
  } else {
    if (command.length === 0) {
      throw new UsageError('give the server to wrap: -- COMMAND ARGS (a stdio server) or --upstream URL');
    }
    if (headers.length > 0) throw new UsageError('--header applies only with --upstream');
    upstream = stdioUpstream({
      command: command[0]!,
      args: command.slice(1),
      onStderr: (text) => process.stderr.write(text),
    });
  }
  return {
    roots: (roots.length > 0 ? roots : [process.cwd()]).map((root) => resolve(root)),
    upstream,
    approve: approve as ApproveMode,
    logLevel: logLevel as ProxyLogLevel,
    ...(line.globals.config ? { config: line.globals.config } : {}),
    display: { noColor: line.globals.noColor, theme: line.globals.theme },
    open: line.globals.open,
  };
}

/** What --approve auto chose, and why, said at start-up (the client's elicitation is known once it connects). */
function autoChoice(running: RunningReview | undefined, root: string): string {
  const page = running
    ? `else writes on the review page of editgate review (pid ${running.pid}) running for ${root}`
    : `else refused: no editgate review is running for ${root} yet (start it, looked for at each question, or use --approve web)`;
  return `approval auto: the client's elicitation if it has it, ${page}; never the terminal, which belongs to the client (--approve terminal to ask there)`;
}

export async function run(args: string[]): Promise<number> {
  let parsed: Parsed;
  try {
    const result = parse(args);
    if (result === 'help') {
      process.stdout.write(HELP);
      return 0;
    }
    parsed = result;
  } catch (error) {
    process.stderr.write(
      `editgate proxy: ${error instanceof Error ? error.message : String(error)}\n\n${HELP}`,
    );
    return 2;
  }

  const log = stderrLog(parsed.logLevel);
  let config: Awaited<ReturnType<typeof loadConfig>>;
  let overrides: ReturnType<typeof parseOverrides>;
  let stateDir: string;
  try {
    config = await loadConfig(parsed.roots[0]!, parsed.config);
    // A root holding the state folder would let the proxied server plant journals and trust records there.
    stateDir = stateDirFor(parsed.roots, defaultStateDir(), config.options.stateDir);
    overrides = parseOverrides(config.config.proxy, config.path);
    // Fail at start-up, not at the first write, when a root or the config is unusable.
    createEditTools({ ...config.options, root: parsed.roots, approve: 'deny' });
    if (config.path) log('info', `config: ${config.path}`);
    if (config.trust?.notice) log('warning', config.trust.notice);
  } catch (error) {
    const message = isEditgateError(error) || error instanceof Error ? error.message : String(error);
    process.stderr.write(`editgate proxy: ${message}\n`);
    return 2;
  }

  // The terminal is asked only when the person said so: under auto and web it is the client's own screen
  // (#28); web asks calls other than writes through the client's elicitation, or refuses them.
  const terminal = parsed.approve === 'terminal' ? proxyTerminal(parsed.display) : undefined;
  let web: WebApproval | undefined;
  let runningWeb: (() => Promise<RunningReview | undefined>) | undefined;
  if (parsed.approve === 'web') {
    const opened = await openWebReview({ root: parsed.roots[0]!, open: parsed.open }, 'editgate proxy');
    for (const line of opened.announcement) log('info', line.replace(/^editgate: /, ''));
    web = opened;
  } else if (parsed.approve === 'auto') {
    runningWeb = findWebReview(parsed.roots[0]!, 'editgate proxy', (message) => log('warning', message));
    log('info', autoChoice(await runningWeb(), parsed.roots[0]!));
  }
  const transport = new StdioServerTransport(process.stdin, process.stdout);
  const running = await serveProxy(transport, {
    upstream: parsed.upstream,
    roots: parsed.roots,
    config: config.options,
    overrides,
    stateDir,
    approve: parsed.approve,
    ...(terminal ? { terminal } : {}),
    ...(web ? { web: web.ask } : {}),
    ...(runningWeb ? { runningWeb: async () => (await runningWeb())?.ask } : {}),
    log,
  });
  log(
    'info',
    `wrapping ${parsed.upstream.describe}; roots ${parsed.roots.join(', ')}; approval ${parsed.approve}`,
  );
  const stop = () => void running.close();
  // The SDK's stdio transport does not notice the client going away; the end of stdin is that. Closing
  // stops the upstream server too.
  const endings: Array<[NodeJS.EventEmitter, string]> = [
    [process.stdin, 'end'],
    [process.stdout, 'error'],
    [process, 'SIGINT'],
    [process, 'SIGTERM'],
  ];
  for (const [emitter, event] of endings) emitter.once(event, stop);
  await running.closed;
  for (const [emitter, event] of endings) emitter.off(event, stop);
  await web?.close();
  return 0;
}
