/**
 * Telling the person a change waits, where they are: a command of theirs (a desktop notification, a chat
 * message) or a POST to a URL (ntfy-style plain text, or JSON for a generic webhook), with the file(s),
 * `+N -M`, who asks and the change's link (single-use, expiring, for that change alone: sign-in-links.ts).
 * Nothing of the diff's content goes out unless the person asked for it (`includeDiff`): a notification
 * service is somebody else's computer.
 *
 * A path and the asker's name come from a model or another process: they are sent as data only. A command
 * is run without a shell (its arguments are the person's, `{title}`, `{text}` and `{link}` replaced whole),
 * and gets the same as EDITGATE_NOTIFY_* variables and as JSON on its standard input; characters a person
 * cannot see are marked (core/invisible.ts) in the text. A notification that fails is reported, never
 * retried, and never holds up the question.
 */
import { spawn } from 'node:child_process';
import { markInvisible } from '../core/invisible.js';
import type { NotifySettings } from './review-settings.js';

/** What a notification says about a change. */
export interface ChangeNotice {
  files: { path: string; kind: string; added: number; removed: number }[];
  /** Who asks: "editgate mcp (pid 4242)". */
  source: string;
  /** The change's link. */
  link: string;
  /** When the link stops working. */
  expiresAt: Date;
  /** The unified diff, sent only when the settings ask for it. */
  diff?: string;
}

/** A command or a POST taking longer than this is given up (and killed). */
export const NOTIFY_TIMEOUT_MS = 10_000;

/** A diff sent with a notification is cut here (a notification is no place for a whole diff). */
const MAX_DIFF_CHARS = 4000;

const TITLE = 'editgate: a change waits for your answer';

/** The notice as plain text: a line per file, who asks, the link and how long it works. */
export function noticeText(notice: ChangeNotice, includeDiff = false): string {
  const files = notice.files.map(
    (file) =>
      `${shown(file.path)} +${file.added} -${file.removed}${file.kind === 'modify' ? '' : ` (${file.kind})`}`,
  );
  const minutes = Math.max(1, Math.round((notice.expiresAt.getTime() - Date.now()) / 60_000));
  const lines = [
    ...files,
    `asked by ${shown(notice.source)}`,
    `Open to answer (once, within ${minutes} min): ${notice.link}`,
  ];
  if (includeDiff && notice.diff) lines.push('', cut(markInvisible(notice.diff)));
  return lines.join('\n');
}

/** Sends the notice as the settings say; resolves with a problem to report, or undefined when it went. */
export async function sendNotice(
  settings: NotifySettings,
  notice: ChangeNotice,
): Promise<string | undefined> {
  const includeDiff = settings.includeDiff === true;
  const text = noticeText(notice, includeDiff);
  try {
    if ('command' in settings) return await runCommand(settings.command, notice, text, includeDiff);
    return await post(settings.url, settings.format ?? 'text', notice, text, includeDiff);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function noticeJson(notice: ChangeNotice, text: string, includeDiff: boolean) {
  return {
    event: 'change-waiting',
    title: TITLE,
    text,
    files: notice.files,
    source: notice.source,
    link: notice.link,
    expiresAt: notice.expiresAt.toISOString(),
    ...(includeDiff && notice.diff ? { diff: cut(notice.diff) } : {}),
  };
}

async function post(
  url: string,
  format: 'text' | 'json',
  notice: ChangeNotice,
  text: string,
  includeDiff: boolean,
): Promise<string | undefined> {
  const response = await fetch(url, {
    method: 'POST',
    // ntfy reads Title and Click; every header value here is editgate's own text, never a path.
    headers:
      format === 'json'
        ? { 'Content-Type': 'application/json' }
        : { 'Content-Type': 'text/plain; charset=utf-8', Title: TITLE, Click: notice.link },
    body: format === 'json' ? JSON.stringify(noticeJson(notice, text, includeDiff)) : text,
    redirect: 'error',
    signal: AbortSignal.timeout(NOTIFY_TIMEOUT_MS),
  });
  await response.body?.cancel();
  return response.ok ? undefined : `${url} answered HTTP ${response.status}`;
}

function runCommand(
  argv: string[],
  notice: ChangeNotice,
  text: string,
  includeDiff: boolean,
): Promise<string | undefined> {
  const values: Record<string, string> = { '{title}': TITLE, '{text}': text, '{link}': notice.link };
  const args = argv.map((arg) => values[arg] ?? arg);
  return new Promise((resolve) => {
    const child = spawn(args[0]!, args.slice(1), {
      stdio: ['pipe', 'ignore', 'pipe'],
      env: {
        ...process.env,
        EDITGATE_NOTIFY_TITLE: TITLE,
        EDITGATE_NOTIFY_TEXT: text,
        EDITGATE_NOTIFY_LINK: notice.link,
        EDITGATE_NOTIFY_FILES: notice.files.map((file) => shown(file.path)).join('\n'),
        EDITGATE_NOTIFY_STATS: notice.files.map((file) => `+${file.added} -${file.removed}`).join('\n'),
        EDITGATE_NOTIFY_SOURCE: shown(notice.source),
        EDITGATE_NOTIFY_EXPIRES: notice.expiresAt.toISOString(),
      },
      timeout: NOTIFY_TIMEOUT_MS,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 500) stderr += chunk;
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(`${JSON.stringify(noticeJson(notice, text, includeDiff))}\n`);
    child.on('error', (error) => resolve(`cannot run ${args[0]}: ${error.message}`));
    child.on('close', (code, signal) => {
      if (code === 0) resolve(undefined);
      else
        resolve(
          `${args[0]} ${signal ? `was stopped (${signal})` : `exited with ${code}`}${stderr.trim() ? `: ${stderr.trim().slice(0, 300)}` : ''}`,
        );
    });
  });
}

/** A name from a model or another process, as a person may be shown it: on one line, nothing hidden. */
function shown(text: string): string {
  return markInvisible(text.replace(/[\r\n]+/g, ' '));
}

function cut(text: string): string {
  return text.length <= MAX_DIFF_CHARS ? text : `${text.slice(0, MAX_DIFF_CHARS)}\n… (cut)`;
}
