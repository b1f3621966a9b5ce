/**
 * An approval kept between two processes: what an agent's pre-tool hook approved, for its post-tool hook (the
 * agent starts a new process for each event, src/hooks/). One record per tool call in the state folder
 * (`<stateDir>/hooks/<sha256 of agent, session and call id>.json`); the post-tool hook settles against it
 * (the bytes before, the bytes approved, who decided) and removes it.
 *
 * A record is acted on as an approval: `gate.settle` writes "approved" in the audit line and history for it.
 * So it is sealed with the state folder's key (workspace/state-key.ts) and one that does not verify is
 * treated as no record: the write is settled as one nobody approved, never the other way round.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, unlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Allowed } from '../gate/gate.js';
import { isErrno } from '../workspace/fs-errors.js';
import { NotPlainFile, readPlainFile, SYNC_BYTES, writeWhole } from '../workspace/io.js';
import { ensurePrivateFolder } from '../workspace/private-folder.js';
import { isSealed, seal, stateKey } from '../workspace/state-key.js';

const PURPOSE = 'hook approval';

/** Which call: the agent, its session and its id of the tool call. */
export interface CallKey {
  session: string;
  call: string;
}

/** Records older than this are stale (an agent that died between the two events): removed when seen. */
const STALE_MS = 24 * 60 * 60 * 1000;

/** One file of an approved call: where, and the bytes before and approved (null: no file). */
export interface KeptFile {
  path: string;
  before: Buffer | null;
  approved: Buffer | null;
}

export interface KeptApproval {
  /** The agent whose hook kept it (src/hooks' AgentId). */
  agent: string;
  tool: string;
  key: CallKey;
  files: KeptFile[];
  allowed: Allowed;
  /** What the post-tool answer tells the model (what the checks found), when the pre-tool one could not. */
  note?: string;
  /** When the pre-tool hook allowed it (ms since the epoch). */
  at: number;
}

function folder(stateDir: string): string {
  return join(stateDir, 'hooks');
}

function recordPath(stateDir: string, agent: string, key: CallKey): string {
  const id = createHash('sha256').update(`${agent}\0${key.session}\0${key.call}`).digest('hex');
  return join(folder(stateDir), `${id}.json`);
}

const bytes = (buffer: Buffer | null) => (buffer === null ? null : buffer.toString('base64'));
const buffer = (text: unknown) => (typeof text === 'string' ? Buffer.from(text, 'base64') : null);

export async function keepApproval(stateDir: string, pending: KeptApproval): Promise<void> {
  await ensurePrivateFolder(folder(stateDir), 'state');
  const body = JSON.stringify({
    agent: pending.agent,
    tool: pending.tool,
    key: pending.key,
    files: pending.files.map((file) => ({
      path: file.path,
      before: bytes(file.before),
      approved: bytes(file.approved),
    })),
    allowed: pending.allowed,
    ...(pending.note ? { note: pending.note } : {}),
    at: pending.at,
  });
  const key = stateKey(stateDir, { create: true })!;
  const text = JSON.stringify({ body, mac: seal(key, PURPOSE, body) });
  // Written synchronously when small, as the workspace writes (workspace/io.ts): the hook server keeps one
  // for every allowed edit, and waits for it before answering.
  const fd = openSync(recordPath(stateDir, pending.agent, pending.key), 'w', 0o600);
  try {
    await writeWhole(fd, Buffer.from(text, 'utf8'));
  } finally {
    closeSync(fd);
  }
}

/**
 * A kept record's text: read synchronously when it is small (most are: one edit's bytes), as io.ts reads
 * and writes up to SYNC_BYTES, else not.
 */
async function readRecord(path: string): Promise<string> {
  try {
    return readPlainFile(path, SYNC_BYTES);
  } catch (error) {
    if (error instanceof NotPlainFile && error.why === 'too large') return readFile(path, 'utf8');
    throw error;
  }
}

/**
 * The approval the pre-tool hook kept for this call, removed as it is taken (a call is settled once);
 * undefined when there is none, or none that editgate sealed.
 */
export async function takeKeptApproval(
  stateDir: string,
  agent: string,
  key: CallKey,
  now = Date.now(),
): Promise<KeptApproval | undefined> {
  const path = recordPath(stateDir, agent, key);
  let text: string;
  try {
    text = await readRecord(path);
  } catch {
    return undefined;
  }
  // Taken once: gone before it is acted on (a second post-tool event for the call finds none).
  try {
    unlinkSync(path);
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
  }
  const stateKeyNow = stateKey(stateDir, { create: false });
  let record: { body?: unknown; mac?: unknown };
  try {
    record = JSON.parse(text) as typeof record;
  } catch {
    return undefined;
  }
  if (stateKeyNow === null || typeof record.body !== 'string') return undefined;
  if (!isSealed(stateKeyNow, PURPOSE, record.body, record.mac)) return undefined;
  const body = JSON.parse(record.body) as Omit<KeptApproval, 'files'> & {
    files: Array<{ path: string; before: unknown; approved: unknown }>;
  };
  if (body.agent !== agent || body.key.session !== key.session || body.key.call !== key.call)
    return undefined;
  if (now - body.at > STALE_MS) return undefined;
  return {
    ...body,
    files: body.files.map((file) => ({
      path: file.path,
      before: buffer(file.before),
      approved: buffer(file.approved),
    })),
  };
}
