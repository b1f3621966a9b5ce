/**
 * The session log (issue #30): every change one session made to files, whoever wrote it (editgate's own
 * commit, a proxied server, a chat's shell command, an agent's own edit tool settled through a hook), kept
 * in the state folder so that `editgate review --session` and the chat's /review can show the session's
 * changes afterwards as one change set and revert part of them. Storage and order only: the gate's settle
 * (gate/settle.ts) records, gate/session-review.ts reads.
 *
 * A session is whatever one face calls one (ARCHITECTURE.md says which): its id names a folder
 * `<stateDir>/sessions/<id>/` holding
 *   - `session.json`: who (the face, a label, the process, the roots) and when it began; written with the
 *     first change, so a session that changed nothing leaves nothing behind;
 *   - `changes.jsonl`: one line per change of one file (appended with O_APPEND: the processes of one hook
 *     session write the same log and never interleave within a line): the hashes of its bytes before and
 *     after, whose hashes chain from the file's first change in the session to its last;
 *   - `blobs/<sha256>`: the bytes a file had before its first change in the session (and every before
 *     this process saw first), so the session's change to it can be diffed and part of it put back. What
 *     the session left is not copied: the file on disk is it while its hash is the last `after`;
 *   - `note.txt`: reasons a review left for the model, taken (renamed away, so read once) by the face at
 *     the next turn or call.
 * Nothing here touches git or a workspace file. Failures to record never fail a written change: the gate
 * reports them as warnings.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { appendFile, open, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EditgateError } from '../core/errors.js';
import { sha256 } from './fingerprint.js';
import { isErrno } from './fs-errors.js';
import { ensurePrivateFolder } from './private-folder.js';

/** The faces a session can belong to (ARCHITECTURE.md, "Sessions"). */
export type SessionFace = 'chat' | 'mcp' | 'proxy' | 'hook' | 'cli' | 'library';

/** Who a session is, as `session.json` keeps it. */
export interface SessionInfo {
  id: string;
  face: SessionFace;
  /** For lists: "chat 2026-12-01 16:40", "claude-code", "editgate apply". */
  label?: string;
  /** When its first change was recorded (ISO time). */
  started: string;
  pid: number;
  roots: string[];
}

/** One change of one file, as the log keeps it. */
export interface SessionChange {
  at: string;
  tool: string;
  /** Who wrote it when editgate did not (the proxied server, 'chat: bash', the agent). */
  writer?: string;
  /** Workspace-relative path, '/'-separated. */
  path: string;
  absolute: string;
  root: string;
  kind: 'create' | 'modify' | 'delete';
  /** sha256 of the bytes before (null: no file; undefined: not known, e.g. a streamed huge file). */
  before?: string | null;
  /** sha256 of the bytes after (null: no file; undefined: not known). */
  after?: string | null;
}

/** A change as the gate hands it over: the bytes when it has them, else their hashes. */
export interface ChangeToRecord extends Omit<SessionChange, 'at' | 'before' | 'after'> {
  /** The bytes before: null, no file; undefined, not known. */
  beforeBytes?: Buffer | null;
  /** When the bytes are not at hand but their hash is (a streamed file's content fingerprint). */
  beforeHash?: string | null;
  afterHash?: string | null;
}

/** Files larger than this are logged by hash only: their session change is not diffed or reverted. */
export const MAX_KEPT_BYTES = 16 * 1024 * 1024;

const SESSIONS = 'sessions';

/** A session id as a folder name: letters, digits, dot, dash, underscore; anything else becomes '-'. */
export function sessionFolderName(id: string): string {
  const clean = id.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^\.+/, '-');
  // Empty, long or cleaned ids (an agent's own session id can be anything) stay apart by a hash of the whole.
  if (clean !== '' && clean.length <= 80 && clean === id) return clean;
  return `${clean.slice(0, 60)}-${sha256(Buffer.from(id)).slice(0, 16)}`;
}

/** A new id for a session whose face has none of its own: face, time, and some randomness. */
export function newSessionId(face: SessionFace): string {
  const time = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `${face}-${time}-${randomBytes(3).toString('hex')}`;
}

export function sessionsFolder(stateDir: string): string {
  return join(stateDir, SESSIONS);
}

/** The logs this process keeps open, by session folder (sessionLogFor); the oldest go past this many. */
const OPEN_LOGS = 64;
const openLogs = new Map<string, SessionLog>();

/**
 * The session's log for this process: the same one for every gate the process opens for the session. A
 * long-lived process that opens a gate per call (the hook server: one per agent event) then names the
 * session once and keeps a file's first bytes once, as a face that keeps one gate does, instead of
 * writing both again for every change.
 */
export function sessionLogFor(stateDir: string, info: Omit<SessionInfo, 'started' | 'pid'>): SessionLog {
  const folder = join(sessionsFolder(stateDir), sessionFolderName(info.id));
  const log = openLogs.get(folder) ?? new SessionLog(stateDir, info);
  // Most recently used last: the first in the map is the one to let go.
  openLogs.delete(folder);
  openLogs.set(folder, log);
  if (openLogs.size > OPEN_LOGS) openLogs.delete(openLogs.keys().next().value!);
  return log;
}

export class SessionLog {
  readonly folder: string;
  private started: Promise<void> | undefined;
  /** Paths whose before this process has kept (or found kept) in this session. */
  private readonly kept = new Set<string>();

  constructor(
    readonly stateDir: string,
    readonly info: Omit<SessionInfo, 'started' | 'pid'>,
  ) {
    this.folder = join(sessionsFolder(stateDir), sessionFolderName(info.id));
  }

  get id(): string {
    return this.info.id;
  }

  /** One changed file, appended; its before bytes kept when this is the first this process saw of it. */
  async record(change: ChangeToRecord): Promise<void> {
    await this.start();
    const { beforeBytes, beforeHash, afterHash, ...rest } = change;
    let before: string | null | undefined = beforeHash;
    if (beforeBytes !== undefined) before = beforeBytes === null ? null : sha256(beforeBytes);
    if (beforeBytes && !this.kept.has(change.absolute) && beforeBytes.length <= MAX_KEPT_BYTES) {
      await this.keepBlob(before!, beforeBytes);
      this.kept.add(change.absolute);
    }
    const line: SessionChange = { at: new Date().toISOString(), ...rest };
    if (before !== undefined) line.before = before;
    if (afterHash !== undefined) line.after = afterHash;
    await appendFile(join(this.folder, 'changes.jsonl'), `${JSON.stringify(line)}\n`, { mode: 0o600 });
  }

  /** Leaves reasons for the model, for the face to take at its next turn or call (added to any left). */
  async leaveNote(text: string): Promise<void> {
    await this.start();
    await appendFile(join(this.folder, 'note.txt'), `${text.trimEnd()}\n`, { mode: 0o600 });
  }

  /** The note left for the model since the last take, once (undefined when none). */
  async takeNote(): Promise<string | undefined> {
    return takeSessionNote(this.folder);
  }

  private start(): Promise<void> {
    this.started ??= (async () => {
      await ensurePrivateFolder(this.stateDir, 'state');
      await ensurePrivateFolder(sessionsFolder(this.stateDir), 'state');
      await ensurePrivateFolder(join(this.folder, 'blobs'), 'state');
      const info: SessionInfo = { ...this.info, started: new Date().toISOString(), pid: process.pid };
      // The first process of a session names it; later ones (a hook session's next event) keep that.
      await writeFile(join(this.folder, 'session.json'), `${JSON.stringify(info)}\n`, {
        flag: 'wx',
        mode: 0o600,
      }).catch((error: unknown) => {
        if (!isErrno(error, 'EEXIST')) throw error;
      });
    })();
    return this.started;
  }

  private async keepBlob(hash: string, bytes: Buffer): Promise<void> {
    const path = join(this.folder, 'blobs', hash);
    if (
      await stat(path).then(
        () => true,
        () => false,
      )
    )
      return;
    // Whole or absent: written beside it, then renamed in.
    const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(temp, bytes, { mode: 0o600 });
    await rename(temp, path);
  }
}

/** A note left for the model in a session folder, taken once: renamed away first, so two takers never both read it. */
export async function takeSessionNote(folder: string): Promise<string | undefined> {
  const note = join(folder, 'note.txt');
  const taken = `${note}.${process.pid}.${randomBytes(4).toString('hex')}.taken`;
  try {
    await rename(note, taken);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw error;
  }
  try {
    // Only a plain file is a note: a link planted in its place is not followed (its target never reaches a model).
    const handle = await open(taken, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      if (!(await handle.stat()).isFile()) return undefined;
      const text = (await handle.readFile('utf8')).trim();
      return text || undefined;
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (isErrno(error, 'ELOOP') || isErrno(error, 'EISDIR')) return undefined;
    throw error;
  } finally {
    await unlink(taken).catch(() => {});
  }
}

/** The note left for session `id`'s model, taken once (undefined when none, or no such session). */
export function takeNoteOf(stateDir: string, id: string): Promise<string | undefined> {
  return takeSessionNote(join(sessionsFolder(stateDir), sessionFolderName(id)));
}

/** A session as a review reads it back: who, and its changes in order. */
export interface LoggedSession {
  info: SessionInfo;
  folder: string;
  changes: SessionChange[];
  /** When its last change was recorded. */
  last: string;
}

/** The bytes a session kept under `hash` (null when it did not keep them). */
export async function keptBytes(session: LoggedSession, hash: string): Promise<Buffer | null> {
  if (!/^[0-9a-f]{64}$/.test(hash)) return null;
  return readFile(join(session.folder, 'blobs', hash)).catch((error: unknown) => {
    if (isErrno(error, 'ENOENT')) return null;
    throw error;
  });
}

/** One session read back, or null when the state folder has no session of that id. */
export async function readSession(stateDir: string, id: string): Promise<LoggedSession | null> {
  return readSessionFolder(join(sessionsFolder(stateDir), sessionFolderName(id)));
}

async function readSessionFolder(folder: string): Promise<LoggedSession | null> {
  let infoText: string;
  try {
    infoText = await readFile(join(folder, 'session.json'), 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return null;
    throw error;
  }
  const info = JSON.parse(infoText) as SessionInfo;
  const text = await readFile(join(folder, 'changes.jsonl'), 'utf8').catch(() => '');
  const changes: SessionChange[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      changes.push(JSON.parse(line) as SessionChange);
    } catch {
      // A line cut short by a crash: the changes before it still count.
    }
  }
  return { info, folder, changes, last: changes.at(-1)?.at ?? info.started };
}

/** Every session in the state folder, the most recent last change first. */
export async function listSessions(stateDir: string): Promise<LoggedSession[]> {
  let names: string[];
  try {
    names = await readdir(sessionsFolder(stateDir));
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return [];
    throw error;
  }
  const sessions: LoggedSession[] = [];
  for (const name of names) {
    try {
      const session = await readSessionFolder(join(sessionsFolder(stateDir), name));
      if (session) sessions.push(session);
    } catch {
      // A folder that is not a session (or a damaged one) is not listed.
    }
  }
  return sessions.sort((a, b) => b.last.localeCompare(a.last));
}

/** The session named by `id` ('last': the most recent one with a change under `root`), or a clear error. */
export async function findSession(
  stateDir: string,
  id: string,
  within: (session: LoggedSession) => boolean = () => true,
): Promise<LoggedSession> {
  if (id === 'last') {
    const last = (await listSessions(stateDir)).find(within);
    if (!last) {
      throw new EditgateError(
        'INVALID_INPUT',
        `No session has changed a file here yet (sessions are kept in ${sessionsFolder(stateDir)}). Run an agent or an editgate command first, or give the folder it worked in.`,
      );
    }
    return last;
  }
  const session = await readSession(stateDir, id);
  if (!session || !within(session)) {
    const known = (await listSessions(stateDir)).filter(within).slice(0, 5);
    throw new EditgateError(
      'INVALID_INPUT',
      `There is no session "${id}"${session ? ' with changes in this folder' : ''}. ${
        known.length > 0
          ? `Recent ones: ${known.map((each) => each.info.id).join(', ')} (editgate review --session --list shows them all).`
          : 'No session has changed a file here yet.'
      }`,
      { session: id },
    );
  }
  return session;
}
