import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';

export const LOG_LEVELS = ['debug', 'info', 'warning', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warning: 2, error: 3 };

/** Where log lines go: stderr (stdout is the protocol) and, per session, MCP logging notifications. */
export interface Logger {
  log(level: LogLevel, message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export type LogSink = (level: LogLevel, message: string) => void;

function fromSink(sink: LogSink): Logger {
  return {
    log: sink,
    debug: (message) => sink('debug', message),
    info: (message) => sink('info', message),
    warn: (message) => sink('warning', message),
    error: (message) => sink('error', message),
  };
}

/** Lines at `minimum` or above go to stderr, prefixed so they can be told from a client's own. */
export function stderrLogger(
  minimum: LogLevel,
  write: (text: string) => void = (text) => process.stderr.write(text),
) {
  return fromSink((level, message) => {
    if (RANK[level] >= RANK[minimum])
      write(`editgate mcp: ${level === 'info' ? '' : `${level}: `}${message}\n`);
  });
}

/**
 * A session's logger: everything to the base logger, and to the client as notifications/message (the
 * client picks its own level with logging/setLevel; the SDK filters). The notification goes out on the
 * next turn of the event loop, in order: a call's summary line is logged just before its result is
 * returned, and writing it first would put a second message on every call's path (issue #12).
 */
export function sessionLogger(
  base: Logger,
  notify: (params: { level: LoggingLevel; logger: string; data: string }) => Promise<void>,
): Logger {
  return fromSink((level, message) => {
    base.log(level, message);
    setImmediate(() => {
      notify({ level, logger: 'editgate', data: message }).catch(() => {
        // Not connected (yet or any more): stderr has the line.
      });
    });
  });
}
