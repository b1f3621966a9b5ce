import { EditgateError, type ErrorCode } from '../core/errors.js';

/** What editgate was doing when the operating system refused; it words the message. */
export type FsAction = 'read' | 'write' | 'create' | 'delete';

export interface FsErrorContext {
  /** Workspace-relative path for the message. Raw OS messages are never used: they name absolute paths. */
  display?: string;
  action?: FsAction;
}

/** The errno code (`'ENOENT'`, ...) of a Node fs error, or undefined for anything else. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

export function isErrno(error: unknown, ...codes: string[]): boolean {
  const code = errnoCode(error);
  return code !== undefined && codes.includes(code);
}

/**
 * Turn an OS error into an EditgateError whose message says what to do next. EditgateErrors pass
 * through unchanged; anything that is not an fs error is wrapped as IO.
 */
export function mapFsError(error: unknown, context: FsErrorContext = {}): EditgateError {
  if (error instanceof EditgateError) return error;
  const file = context.display ?? 'the file';
  const action = context.action ?? 'write';
  const errno = errnoCode(error);
  const details = { path: context.display, errno, syscall: syscallOf(error), action };
  const unchanged = action === 'read' ? '' : ` ${capitalise(file)} was not changed.`;
  const fail = (code: ErrorCode, happened: string, advice?: string) =>
    new EditgateError(code, { happened, advice }, details);

  switch (errno) {
    case 'EACCES':
    case 'EPERM':
      return fail(
        'PERMISSION',
        `Permission denied: the operating system does not allow editgate to ${action} ${file}.${unchanged}`,
        'Do not retry; ask the user to fix the permissions or choose another file.',
      );
    case 'EROFS':
      return fail(
        'READ_ONLY',
        `${capitalise(file)} is on a read-only filesystem and cannot be changed.${unchanged}`,
        'Do not retry; tell the user.',
      );
    case 'ENOSPC':
    case 'EDQUOT':
      return fail(
        'DISK_FULL',
        `The disk is full (or the quota is used up), so ${file} could not be written.${unchanged}`,
        'Ask the user to free some space, then try again.',
      );
    case 'EISDIR':
      return fail('IS_DIRECTORY', `${capitalise(file)} is a folder, not a file. Give the path of a file.`);
    case 'ENAMETOOLONG':
      return fail(
        'NAME_TOO_LONG',
        `The name ${file} is too long for the filesystem. Choose a shorter file name or path.`,
      );
    case 'ENOENT':
      return fail(
        'FILE_NOT_FOUND',
        `${capitalise(file)} does not exist.`,
        'Check the path (it is relative to the workspace root), or create the file with write_file.',
      );
    case 'ENOTDIR':
      return fail(
        'IO',
        `A part of the path ${file} is a file, not a folder.${unchanged} Check the path and try again.`,
      );
    case 'EMFILE':
    case 'ENFILE':
    case 'EBUSY':
    case 'ETXTBSY':
    case 'EAGAIN':
    case 'EINTR':
      return fail(
        'IO',
        `The system was busy and could not ${action} ${file} (${errno}).${unchanged} Try again in a moment.`,
      );
    default:
      return fail(
        'IO',
        `Could not ${action} ${file}: ${errno ?? (error instanceof Error ? error.name : 'unknown error')}.${unchanged}`,
        'Try again; if it keeps failing, tell the user.',
      );
  }
}

function syscallOf(error: unknown): string | undefined {
  const syscall =
    typeof error === 'object' && error !== null ? (error as { syscall?: unknown }).syscall : undefined;
  return typeof syscall === 'string' ? syscall : undefined;
}

function capitalise(text: string): string {
  return text.startsWith('the ') ? `T${text.slice(1)}` : text;
}

/**
 * STALE: the file is no longer what a change was computed from, so nothing is written. One wording for
 * every commit (commit.ts) and for the streaming path's own checks.
 */
export function staleError(display: string | undefined, how: 'changed' | 'deleted'): EditgateError {
  const file = display ?? 'The file';
  return new EditgateError(
    'STALE',
    how === 'deleted'
      ? {
          happened: `${file} was deleted since this change was computed; nothing was written.`,
          advice: 'Check whether it should still exist before trying again.',
        }
      : {
          happened: `${file} was changed by someone else since this change was computed; nothing was written.`,
          advice: 'Read it again with read_file, then redo the edit against its current content.',
        },
    { path: display, reason: how },
  );
}

/** A file that did not exist when the change was computed exists now. */
export function appearedError(display: string | undefined): EditgateError {
  const file = display ?? 'The file';
  return new EditgateError(
    'STALE',
    {
      happened: `${file} was created by someone else since this change was computed; nothing was written and it was not overwritten.`,
      advice: 'Read it with read_file, then decide how to change it.',
    },
    { path: display, reason: 'created' },
  );
}
