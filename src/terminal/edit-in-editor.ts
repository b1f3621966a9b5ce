import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { yourVersion } from '../core/your-version.js';
import type { ApprovalQuestion } from '../gate/approval.js';
import type { TerminalInput, TerminalOutput } from './tty-modes.js';

/**
 * `e` at a terminal question (the chat's card, the CLI's prompt): the proposed new text of the file opens
 * in the person's editor ($VISUAL, else $EDITOR, else vi), and what they save is their answer. The text
 * goes to a file of its own in a private folder (0700, the file 0600: the proposed text may be private),
 * named with the file's extension so the editor knows the language; the folder is removed afterwards.
 *
 * The terminal is handed over: raw mode off, and the editor runs with spawnSync, so this process reads no
 * key while it runs (an event loop that ran would read keys meant for the editor). Raw mode comes back
 * after. The caller redraws what it had on screen.
 */
export type EditorOutcome =
  | { kind: 'edited'; text: string }
  /** Saved as it was, or not saved. */
  | { kind: 'unchanged' }
  /** The editor could not start or exited non-zero: nothing is taken from it. */
  | { kind: 'failed'; reason: string };

/** Whether `e` can offer the request's new text: one file, its texts held, neither a read nor a delete. */
export function editableText(request: ApprovalQuestion): string | undefined {
  const [file, ...others] = request.files;
  if (!file || others.length > 0 || !file.texts || file.kind === 'read' || file.kind === 'delete')
    return undefined;
  return file.texts.after;
}

export function editInEditor(
  text: string,
  path: string,
  terminal: { input: TerminalInput; output: TerminalOutput },
  env: NodeJS.ProcessEnv = process.env,
): EditorOutcome {
  const editor = env.VISUAL?.trim() || env.EDITOR?.trim() || 'vi';
  const folder = mkdtempSync(join(tmpdir(), 'editgate-edit-'));
  // Only the extension is taken from the path (a model may have named the file): letters and digits.
  const extension = /^\.[A-Za-z0-9]{1,16}$/.test(extname(path)) ? extname(path) : '.txt';
  const file = join(folder, `proposed${extension}`);
  const { input } = terminal;
  const wasRaw = input.isRaw === true;
  let tty: number | undefined;
  try {
    writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
    try {
      tty = openSync('/dev/tty', 'r+');
    } catch {
      // No controlling terminal: the editor gets this process's own standard streams.
    }
    if (wasRaw) input.setRawMode?.(false);
    // The editor command is the person's own setting (it may carry arguments, `code --wait`): the shell
    // splits it; the file's name is passed as an argument, never as part of the command.
    const run = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'editor', file], {
      stdio: tty === undefined ? 'inherit' : [tty, tty, tty],
      env,
    });
    if (run.error)
      return { kind: 'failed', reason: `the editor (${editor}) could not start: ${run.error.message}` };
    if (run.status !== 0)
      return {
        kind: 'failed',
        reason: `the editor (${editor}) exited with ${run.status === null ? `signal ${run.signal}` : `code ${run.status}`}; nothing was taken from it`,
      };
    const saved = readFileSync(file, 'utf8');
    return saved === text ? { kind: 'unchanged' } : { kind: 'edited', text: saved };
  } finally {
    if (tty !== undefined) closeSync(tty);
    if (wasRaw) input.setRawMode?.(true);
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The request as it would be with the person's version: its diff is theirs, against the file as it is. */
export function withYourVersion(request: ApprovalQuestion, yours: string): ApprovalQuestion {
  const file = request.files[0]!;
  return { ...request, files: [{ ...file, ...yourVersion(file, file.texts?.before ?? '', yours) }] };
}
