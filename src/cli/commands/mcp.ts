// `editgate mcp`: the MCP server. Parses the command line, loads the root's config once, and serves stdio
// (the default) or Streamable HTTP until the client goes away or a signal arrives.
import { resolve } from 'node:path';
import { isEditgateError } from '../../core/errors.js';
import { APPROVE_CHOICES, type ApproveChoice } from '../../mcp/approval-mode.js';
import { newToken, readTokenFile } from '../../mcp/http-token.js';
import { LOG_LEVELS, type Logger, type LogLevel, stderrLogger } from '../../mcp/logger.js';
import {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_CHANGE_TTL_MS,
  DEFAULT_MAX_INPUT_BYTES,
  DEFAULT_READ_PAGE_CHARS,
  type McpServeOptions,
} from '../../mcp/options.js';
import { serveStdio } from '../../mcp/stdio.js';
import { loadConfig } from '../../tools/config.js';
import { createEditTools } from '../../tools/index.js';
import { stateDirFor } from '../../tools/state-dir.js';
import { defaultStateDir } from '../state-dir.js';
import { type ParsedCommandLine, parseCommandLine, UsageError } from '../usage.js';

const HELP = `Usage: editgate mcp [ROOT...] [options]

Serve editgate's tools (read_file, write_file, edit_file, multi_edit, edit_lines, apply_patch, undo_edit) to an MCP
client. ROOT folders default to the current folder; relative paths resolve against the first. The first
root's editgate.config.json (policy, deny, hooks, audit log) applies.

Options:
  --approve MODE            how changes are approved (default auto-detect):
                              elicit       ask the person in the client (MCP elicitation) with the diff
                              preview      change tools return the diff and a change_id; apply_change writes
                              policy       the config's rules alone decide; no one is asked
                              deny         read-only: only read_file
                              web          ask the person on a local web review page (its link is
                                           logged; a running editgate review for the root is used)
                              auto-detect  elicit if the client supports it, else preview
                            ("approve": "web" in the config also chooses web)
  --config FILE             use this config file instead of ROOT/editgate.config.json
  --open                    with --approve web, open the review page in the browser
  --use-client-roots        narrow the roots to the client's MCP roots (never wider)
  --http PORT               serve Streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio (0: any free port)
  --token TOKEN             HTTP: require "Authorization: Bearer TOKEN"; prefer the EDITGATE_MCP_TOKEN
                            environment variable (a command line is visible to other local users)
  --token-file FILE         HTTP: the token is the first line of FILE (yours, mode 0600)
                            Without a token given, --http makes one and prints it on stderr.
  --no-token                HTTP: no token (any local user's process could use the server)
  --change-ttl DURATION     preview: how long a change_id stays valid (default 10m; e.g. 90s, 5m, 1h)
  --approval-timeout DURATION  elicit: how long to wait for an answer; no answer is a denial (default 10m)
  --read-page CHARS         read_file's page size in characters (default 25000: below what Claude Code and
                            Gemini CLI keep of a result; raise it only for a client that keeps more)
  --max-input SIZE          largest tool arguments accepted (default 8mb; e.g. 512kb, 20mb)
  --log-level LEVEL         stderr logging: debug, info, warning, error (default info)
  -h, --help                show this help
`;

const UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const UNITS_BYTES: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** "90s", "5m", "1500ms", "2h"; a bare number is milliseconds. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/i.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1]) * UNITS_MS[(match[2] ?? 'ms').toLowerCase()]!;
  return value > 0 ? Math.round(value) : undefined;
}

/** "512kb", "8mb", "100000"; a bare number is bytes. */
export function parseSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1]) * UNITS_BYTES[(match[2] ?? 'b').toLowerCase()]!;
  return value >= 1 ? Math.floor(value) : undefined;
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag} must be one of ${allowed.join(', ')} (got "${value}")`);
}

function parsed<T>(
  flag: string,
  value: string | undefined,
  parse: (text: string) => T | undefined,
  fallback: T,
): T {
  if (value === undefined) return fallback;
  const result = parse(value);
  if (result === undefined) throw new UsageError(`${flag}: cannot understand "${value}"`);
  return result;
}

function parsePort(value: string): number | undefined {
  if (!/^\d+$/.test(value)) return undefined;
  const port = Number(value);
  return port <= 65_535 ? port : undefined;
}

/** A page of at least 1,000 characters, so a page always holds a useful number of lines. */
function parsePageChars(value: string): number | undefined {
  if (!/^\d+$/.test(value)) return undefined;
  const chars = Number(value);
  return chars >= 1000 ? chars : undefined;
}

const OPTIONS = {
  approve: { type: 'string' },
  'use-client-roots': { type: 'boolean' },
  http: { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'no-token': { type: 'boolean' },
  'change-ttl': { type: 'string' },
  'approval-timeout': { type: 'string' },
  'max-input': { type: 'string' },
  'read-page': { type: 'string' },
  'log-level': { type: 'string' },
} as const;

export async function run(args: string[]): Promise<number> {
  let values: ParsedCommandLine<typeof OPTIONS>['values'] & { config?: string; open?: boolean };
  let positionals: string[];
  let logLevel: LogLevel;
  let approve: ApproveChoice;
  let port: number | undefined;
  let changeTtlMs: number;
  let approvalTimeoutMs: number;
  let maxInputBytes: number;
  let readPageChars: number;
  let token: string | undefined;
  let madeToken = false;
  try {
    const line = parseCommandLine(args, OPTIONS, ['config', 'open']);
    ({ values, positionals } = line);
    values.config = line.globals.config;
    values.open = line.globals.open;
    if (line.help) {
      process.stdout.write(HELP);
      return 0;
    }
    approve = oneOf('--approve', values.approve ?? 'auto-detect', APPROVE_CHOICES);
    if (values.open && values.approve !== undefined && approve !== 'web') {
      throw new UsageError('--open opens the web review page: it goes with --approve web');
    }
    logLevel = oneOf('--log-level', values['log-level'] ?? 'info', LOG_LEVELS);
    port = values.http === undefined ? undefined : parsed('--http', values.http, parsePort, 0);
    changeTtlMs = parsed('--change-ttl', values['change-ttl'], parseDuration, DEFAULT_CHANGE_TTL_MS);
    approvalTimeoutMs = parsed(
      '--approval-timeout',
      values['approval-timeout'],
      parseDuration,
      DEFAULT_APPROVAL_TIMEOUT_MS,
    );
    maxInputBytes = parsed('--max-input', values['max-input'], parseSize, DEFAULT_MAX_INPUT_BYTES);
    readPageChars = parsed('--read-page', values['read-page'], parsePageChars, DEFAULT_READ_PAGE_CHARS);
    const tokenFlags = [values.token, values['token-file'], values['no-token']].filter(
      (v) => v !== undefined,
    );
    if (tokenFlags.length > 0 && port === undefined) {
      throw new UsageError(
        '--token, --token-file and --no-token apply only with --http (stdio is private to the client that started it)',
      );
    }
    if (tokenFlags.length > 1) throw new UsageError('give one of --token, --token-file and --no-token');
    if (port !== undefined && !values['no-token']) {
      token =
        values.token ??
        (values['token-file'] !== undefined
          ? readTokenFile(values['token-file'])
          : process.env.EDITGATE_MCP_TOKEN || undefined);
      if (token === undefined) {
        token = newToken();
        madeToken = true;
      }
    }
  } catch (error) {
    process.stderr.write(
      `editgate mcp: ${error instanceof Error ? error.message : String(error)}\n\n${HELP}`,
    );
    return 2;
  }

  const log = stderrLogger(logLevel);
  const roots = (positionals.length > 0 ? positionals : [process.cwd()]).map((root) => resolve(root));
  let options: McpServeOptions;
  try {
    const config = await loadConfig(roots[0]!, values.config);
    if (values.approve === undefined && config.config.approve === 'web') approve = 'web';
    // Fail at start-up, not at the first tool call, when a root or the config is unusable, or a root holds
    // the state folder.
    stateDirFor(roots, defaultStateDir(), config.options.stateDir);
    createEditTools({ ...config.options, root: roots, approve: 'deny' });
    options = {
      roots,
      approve,
      config,
      useClientRoots: values['use-client-roots'] ?? false,
      changeTtlMs,
      approvalTimeoutMs,
      maxInputBytes,
      readPageChars,
      log,
      stateDir: defaultStateDir(),
    };
    if (config.path) log.info(`config: ${config.path}`);
    // Untrusted: said once, at start-up, with the command that trusts it (tools/config-trust.ts).
    if (config.trust?.notice) log.warn(config.trust.notice);
    if (approve === 'policy' && !config.config.policy?.rules.some((rule) => rule.action === 'allow')) {
      log.warn('--approve policy with no "allow" rule in the config: every change will be refused');
    }
  } catch (error) {
    const message = isEditgateError(error) || error instanceof Error ? error.message : String(error);
    process.stderr.write(`editgate mcp: ${message}\n`);
    return 2;
  }

  let web: Awaited<ReturnType<typeof startWebReview>> | undefined;
  if (approve === 'web') {
    try {
      web = await startWebReview(roots[0]!, values.open === true, log);
      options.webApprover = web.ask;
    } catch (error) {
      process.stderr.write(`editgate mcp: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  }

  const where = `roots ${roots.join(', ')}; approval ${approve}${options.useClientRoots ? '; narrowed to client roots' : ''}`;
  let server: { closed: Promise<void>; close(): Promise<void> };
  try {
    if (port === undefined) {
      server = await serveStdio(options);
      log.info(`serving over stdio: ${where}`);
    } else {
      // Loaded only for --http: a stdio server need not load the HTTP stack (hono, the SDK's Streamable HTTP).
      const { serveHttp } = await import('../../mcp/http.js');
      const http = await serveHttp({ ...options, port, token });
      server = http;
      // Made here: the person gives it to their client (it is on stderr, which only they see).
      if (madeToken) log.info(`bearer token: ${token} (clients send "Authorization: Bearer <token>")`);
      else if (!token) log.warn('--no-token: any process of any local user can use this server');
      log.info(`serving Streamable HTTP at ${http.url}: ${where}${token ? '; bearer token required' : ''}`);
    }
  } catch (error) {
    process.stderr.write(`editgate mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }

  const stop = () => void server.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await server.closed;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  await web?.close();
  return 0;
}

/** The review page for --approve web (or the running editgate review of the root), logged with its link. */
async function startWebReview(root: string, open: boolean, log: Logger) {
  const [{ openWebApproval }, { openReviewInBrowser }] = await Promise.all([
    import('../../web/web-approval.js'),
    import('../../web/open-browser.js'),
  ]);
  const web = await openWebApproval({
    root,
    stateDir: defaultStateDir(),
    source: `editgate mcp (pid ${process.pid})`,
    warn: (message) => log.warn(message),
  });
  log.info(
    web.sharedWith === undefined
      ? `review changes in your browser: ${web.url}`
      : `changes go to the review page of editgate review (pid ${web.sharedWith}): ${web.url}`,
  );
  if (open) {
    const failed = await openReviewInBrowser(web, defaultStateDir());
    if (failed) log.warn(`${failed}; open the link above yourself`);
  }
  return web;
}
