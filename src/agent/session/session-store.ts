import { createHash, randomBytes } from 'node:crypto';
import { appendFile, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ModelMessage } from 'ai';

/**
 * Chat sessions, saved as JSON Lines in the state folder (`STATE/chat/PROJECT/sessions/ID.jsonl`, private
 * to the user): one record per line, appended as the conversation grows, so a crash loses at most the line
 * being written (a broken last line is skipped on load). What is saved: the messages, the model's name,
 * token counts, and the files the session read or changed with their hash at the end of each turn (so a
 * resumed session can name the ones that changed since). Never a key, never a base URL (it may carry one).
 */
export type SessionRecord =
  | { t: 'session'; v: 1; id: string; root: string; model: string; created: string }
  | { t: 'message'; message: ModelMessage }
  | { t: 'model'; model: string }
  | { t: 'usage'; input: number; output: number }
  | { t: 'files'; files: Record<string, string | null> }
  | { t: 'compact'; summary: string };

export interface LoadedSession {
  id: string;
  model: string;
  created: string;
  messages: ModelMessage[];
  /** Summary of the conversation before a /compact, for the system prompt. */
  summary: string | undefined;
  usage: { input: number; output: number };
  files: Record<string, string | null>;
}

export interface SessionListing {
  id: string;
  created: string;
  modified: number;
  model: string;
  /** The first thing the person asked, on one line. */
  title: string;
}

/** The folder of one project's chat state: its sessions and its input history. */
export function projectStateDir(stateDir: string, root: string): string {
  const hash = createHash('sha256').update(root).digest('hex').slice(0, 12);
  const name =
    basename(root)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'root';
  return join(stateDir, 'chat', `${name}-${hash}`);
}

export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

export class SessionStore {
  private queue: Promise<void> = Promise.resolve();
  private started = false;

  constructor(
    readonly folder: string,
    readonly id: string,
    private readonly header: { root: string; model: string },
  ) {}

  static forProject(
    projectDir: string,
    header: { root: string; model: string },
    id = newSessionId(),
  ): SessionStore {
    return new SessionStore(join(projectDir, 'sessions'), id, header);
  }

  /** Appends to a session saved earlier (its header is already there). */
  static continuing(folder: string, id: string, header: { root: string; model: string }): SessionStore {
    const store = new SessionStore(folder, id, header);
    store.started = true;
    return store;
  }

  get path(): string {
    return join(this.folder, `${this.id}.jsonl`);
  }

  /** Appends a record (in order, after the ones before it). The file is created with the first one. */
  append(record: SessionRecord): Promise<void> {
    this.queue = this.queue.then(async () => {
      if (!this.started) {
        this.started = true;
        await mkdir(this.folder, { recursive: true, mode: 0o700 });
        const head: SessionRecord = {
          t: 'session',
          v: 1,
          id: this.id,
          ...this.header,
          created: new Date().toISOString(),
        };
        await appendFile(this.path, `${JSON.stringify(head)}\n`, { mode: 0o600 });
      }
      await appendFile(this.path, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    });
    // A full disk must not end the conversation; the next append tries again.
    const written = this.queue;
    this.queue = this.queue.catch(() => {});
    return written;
  }

  /** Waits for every record appended so far. */
  settle(): Promise<void> {
    return this.queue;
  }
}

export async function loadSession(projectDir: string, id: string): Promise<LoadedSession> {
  if (!/^[\w.-]+$/.test(id)) throw new Error(`"${id}" is not a session id.`);
  const path = join(projectDir, 'sessions', `${id}.jsonl`);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new Error(`There is no session ${id} for this project. /resume lists them.`);
  }
  const session: LoadedSession = {
    id,
    model: '',
    created: '',
    messages: [],
    summary: undefined,
    usage: { input: 0, output: 0 },
    files: {},
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let record: SessionRecord;
    try {
      record = JSON.parse(line) as SessionRecord;
    } catch {
      continue; // a line cut short by a crash
    }
    if (record.t === 'session') {
      session.model = record.model;
      session.created = record.created;
    } else if (record.t === 'message') session.messages.push(record.message);
    else if (record.t === 'model') session.model = record.model;
    else if (record.t === 'usage') {
      session.usage.input += record.input;
      session.usage.output += record.output;
    } else if (record.t === 'files') Object.assign(session.files, record.files);
    else if (record.t === 'compact') {
      session.summary = record.summary;
      session.messages = [];
    }
  }
  return session;
}

/** This project's sessions, newest first. */
export async function listSessions(projectDir: string): Promise<SessionListing[]> {
  const folder = join(projectDir, 'sessions');
  let names: string[];
  try {
    names = (await readdir(folder)).filter((name) => name.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const listings: SessionListing[] = [];
  for (const name of names) {
    const path = join(folder, name);
    try {
      const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
      const lines = text.split('\n', 40);
      const head = JSON.parse(lines[0]!) as SessionRecord;
      if (head.t !== 'session') continue;
      let title = '';
      for (const line of lines.slice(1)) {
        try {
          const record = JSON.parse(line) as SessionRecord;
          if (record.t === 'message' && record.message.role === 'user') {
            const content = record.message.content;
            title =
              typeof content === 'string'
                ? content
                : content.map((part) => ('text' in part ? part.text : '')).join(' ');
            break;
          }
        } catch {
          break;
        }
      }
      listings.push({
        id: head.id,
        created: head.created,
        modified: info.mtimeMs,
        model: head.model,
        title: title.replace(/\s+/g, ' ').trim(),
      });
    } catch {
      // Not a session file we can read; skip it.
    }
  }
  return listings.sort((a, b) => b.modified - a.modified);
}

/** The person's earlier messages in this project, oldest first (kept to the last `limit`). */
export async function loadInputHistory(projectDir: string, limit = 500): Promise<string[]> {
  try {
    const text = await readFile(join(projectDir, 'input-history.jsonl'), 'utf8');
    const entries: string[] = [];
    for (const line of text.split('\n')) {
      try {
        const entry = JSON.parse(line) as unknown;
        if (typeof entry === 'string') entries.push(entry);
      } catch {
        // skip a broken line
      }
    }
    return entries.slice(-limit);
  } catch {
    return [];
  }
}

export async function appendInputHistory(projectDir: string, entry: string): Promise<void> {
  await mkdir(projectDir, { recursive: true, mode: 0o700 });
  await appendFile(join(projectDir, 'input-history.jsonl'), `${JSON.stringify(entry)}\n`, { mode: 0o600 });
}
