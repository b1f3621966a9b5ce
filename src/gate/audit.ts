import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/** One line of the audit log (JSON Lines): who changed what, when, and on whose say-so. */
export interface AuditEntry {
  time: string;
  tool: string;
  path: string;
  kind: string;
  /** How the change was allowed or refused: 'once' | 'file' | 'all' | 'session' | 'policy' | 'deny' | ... */
  decision: string;
  /** Who decided: 'user' | 'policy' | 'session' | 'hook' | 'auto'. */
  decidedBy: string;
  stats?: { added: number; removed: number };
  hashBefore?: string | null;
  hashAfter?: string | null;
  reason?: string;
}

export async function appendAudit(logPath: string, entry: AuditEntry): Promise<void> {
  await mkdir(dirname(logPath), { recursive: true });
  // One write per line with O_APPEND: concurrent writers never interleave within a line.
  await appendFile(logPath, `${JSON.stringify(entry)}\n`, 'utf8');
}
