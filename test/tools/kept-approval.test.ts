import { readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type KeptApproval, keepApproval, takeKeptApproval } from '../../src/tools/kept-approval.js';
import { tempFolder } from '../temp-folder.js';

// What an agent's pre-tool hook approved, kept for its post-tool hook (another process, or the hook server's
// next call): settled against as an approval, so only a record editgate sealed, for that very call, counts.
const key = { session: 's1', call: 'call-1' };
const approval = (files: KeptApproval['files'], at = Date.now()): KeptApproval => ({
  agent: 'codex',
  tool: 'apply_patch',
  key,
  files,
  allowed: { decision: 'once', decidedBy: 'policy', rule: { path: '**', action: 'allow' } },
  note: 'what the checks found',
  at,
});
const recordFile = (stateDir: string) => {
  const [name] = readdirSync(join(stateDir, 'hooks'));
  return join(stateDir, 'hooks', name!);
};

describe('kept approvals', () => {
  it('give back the bytes before and approved (no file: null), once', async () => {
    const stateDir = tempFolder('editgate-kept-');
    const files = [
      { path: '/w/a.txt', before: Buffer.from('old\n'), approved: Buffer.from('new\n') },
      { path: '/w/b.txt', before: null, approved: Buffer.from([0, 255, 10]) },
      { path: '/w/c.txt', before: Buffer.from('gone\n'), approved: null },
    ];
    await keepApproval(stateDir, approval(files));
    const taken = await takeKeptApproval(stateDir, 'codex', key);
    expect(taken).toMatchObject({ tool: 'apply_patch', note: 'what the checks found', files });
    expect(taken?.allowed).toEqual({
      decision: 'once',
      decidedBy: 'policy',
      rule: { path: '**', action: 'allow' },
    });
    // Taken once: the post-tool event settles the call once.
    expect(await takeKeptApproval(stateDir, 'codex', key)).toBeUndefined();
    expect(readdirSync(join(stateDir, 'hooks'))).toEqual([]);
  });

  it('keeps and gives back a call whose bytes are over the size read synchronously', async () => {
    const stateDir = tempFolder('editgate-kept-');
    const big = Buffer.alloc(2 * 1024 * 1024, 'x');
    await keepApproval(stateDir, approval([{ path: '/w/big.txt', before: big, approved: Buffer.from('y') }]));
    const taken = await takeKeptApproval(stateDir, 'codex', key);
    expect(taken?.files[0]?.before?.equals(big)).toBe(true);
  });

  it('believe no record editgate did not seal, and none for another agent or call, or too old', async () => {
    const stateDir = tempFolder('editgate-kept-');
    const files = [{ path: '/w/a.txt', before: Buffer.from('a'), approved: Buffer.from('b') }];
    await keepApproval(stateDir, approval(files));
    const file = recordFile(stateDir);
    const record = JSON.parse(readFileSync(file, 'utf8')) as { body: string; mac: string };
    // The body changed (another decider), its seal not: not an approval.
    writeFileSync(file, JSON.stringify({ ...record, body: record.body.replace('policy', 'user') }));
    expect(await takeKeptApproval(stateDir, 'codex', key)).toBeUndefined();

    await keepApproval(stateDir, approval(files));
    expect(await takeKeptApproval(stateDir, 'claude-code', key)).toBeUndefined();
    expect(await takeKeptApproval(stateDir, 'codex', { ...key, call: 'call-2' })).toBeUndefined();
    // Still there for its own call, and older than a day is stale.
    expect(await takeKeptApproval(stateDir, 'codex', key, Date.now() + 25 * 3600 * 1000)).toBeUndefined();
  });

  it('follow no link in a record’s place', async () => {
    const stateDir = tempFolder('editgate-kept-');
    await keepApproval(stateDir, approval([{ path: '/w/a.txt', before: null, approved: Buffer.from('b') }]));
    const file = recordFile(stateDir);
    const elsewhere = join(tempFolder('editgate-kept-elsewhere-'), 'record.json');
    renameSync(file, elsewhere);
    symlinkSync(elsewhere, file);
    expect(await takeKeptApproval(stateDir, 'codex', key)).toBeUndefined();
  });
});
