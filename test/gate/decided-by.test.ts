import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autoApprover } from '../../src/gate/approval.js';
import type { Screening } from '../../src/gate/gate.js';
import { tempFolder } from '../temp-folder.js';
import { makeWorkspace, readAll, scriptedApprover } from '../tools/workspace-fixture.js';

/**
 * Who decided (issue #14, item 10): every source of a yes says so in the model's result details, in the
 * audit log and in what onPreview tells a front end: a person, an auto-approver (--yes), a policy rule
 * (named), a session grant (which one).
 */
const files = { 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'gen/out.txt': 'generated\n' };

async function auditLines(path: string): Promise<Record<string, unknown>[]> {
  return (await readFile(path, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function setup(options: Parameters<Awaited<ReturnType<typeof makeWorkspace>>['tools']>[0]) {
  const ws = await makeWorkspace(files);
  const auditLog = join(tempFolder('editgate-decided-'), 'audit.jsonl');
  const screenings: Screening[] = [];
  const tools = ws.tools({
    auditLog,
    onPreview: (_, screening) => void screenings.push(screening),
    ...options,
  });
  const edit = async (path: string, from: string, to: string) => {
    await readAll(tools, path);
    return tools.execute('edit_file', { file_path: path, old_string: from, new_string: to });
  };
  return { ws, auditLog, screenings, tools, edit };
}

describe('decidedBy', () => {
  it('a person who answered the question: user', async () => {
    const { edit, auditLog } = await setup({ approve: scriptedApprover('once').approver });
    const result = await edit('a.txt', 'alpha', 'ALPHA');
    expect(result).toMatchObject({ ok: true, details: { decision: 'once', decidedBy: 'user' } });
    expect(result.details).not.toHaveProperty('auto');
    expect(await auditLines(auditLog)).toEqual([
      expect.objectContaining({ decision: 'once', decidedBy: 'user', path: 'a.txt' }),
    ]);
  });

  it("an auto-approver (the CLI's --yes) is not a person: auto, named", async () => {
    const { edit, auditLog } = await setup({ approve: autoApprover('--yes') });
    const result = await edit('a.txt', 'alpha', 'ALPHA');
    expect(result).toMatchObject({
      ok: true,
      details: { decision: 'once', decidedBy: 'auto', auto: '--yes' },
    });
    expect(await auditLines(auditLog)).toEqual([
      expect.objectContaining({ decision: 'once', decidedBy: 'auto', auto: '--yes' }),
    ]);
  });

  it("approve: 'allow' is an auto-approval too", async () => {
    const { edit, auditLog } = await setup({ approve: 'allow' });
    const result = await edit('a.txt', 'alpha', 'ALPHA');
    expect(result).toMatchObject({ details: { decidedBy: 'auto', auto: "approve: 'allow'" } });
    expect((await auditLines(auditLog))[0]).toMatchObject({ decidedBy: 'auto', auto: "approve: 'allow'" });
  });

  it('a policy rule: policy, with the rule that allowed it', async () => {
    const rule = { tool: 'edit_file', path: 'gen/**', action: 'allow' as const };
    const { edit, auditLog, screenings } = await setup({
      approve: scriptedApprover().approver,
      policy: { rules: [rule] },
    });
    const result = await edit('gen/out.txt', 'generated', 'made');
    expect(result).toMatchObject({ ok: true, details: { decision: 'policy', decidedBy: 'policy', rule } });
    expect(screenings).toEqual([{ ask: false, approvedBy: 'policy', rule }]);
    expect(await auditLines(auditLog)).toEqual([
      expect.objectContaining({ decision: 'policy', decidedBy: 'policy', rule }),
    ]);
  });

  it('a grant given earlier: session, with the grant (this file, or all)', async () => {
    const { edit, auditLog, screenings } = await setup({ approve: scriptedApprover('file', 'all').approver });
    await edit('a.txt', 'alpha', 'one');
    const byFileGrant = await edit('a.txt', 'one', 'two');
    expect(byFileGrant).toMatchObject({
      details: { decision: 'session', decidedBy: 'session', grant: 'file' },
    });
    await edit('b.txt', 'beta', 'three');
    const byAllGrant = await edit('b.txt', 'three', 'four');
    expect(byAllGrant).toMatchObject({
      details: { decision: 'session', decidedBy: 'session', grant: 'all' },
    });
    expect(screenings).toEqual([
      { ask: true },
      { ask: false, approvedBy: 'session', grant: 'file' },
      { ask: true },
      { ask: false, approvedBy: 'session', grant: 'all' },
    ]);
    const lines = await auditLines(auditLog);
    expect(lines.map((line) => [line.decidedBy, line.grant ?? null])).toEqual([
      ['user', null],
      ['session', 'file'],
      ['user', null],
      ['session', 'all'],
    ]);
  });

  it('a person approving with a note: the note is in the audit line', async () => {
    const { edit, auditLog } = await setup({
      approve: scriptedApprover({ allow: 'once', reason: 'fine for now' }).approver,
    });
    await edit('a.txt', 'alpha', 'ALPHA');
    expect((await auditLines(auditLog))[0]).toMatchObject({ decidedBy: 'user', reason: 'fine for now' });
  });

  it('a hook refusal: hook, with its reason', async () => {
    const { edit, auditLog } = await setup({
      approve: 'allow',
      hooks: { beforeChange: () => ({ deny: 'frozen' }) },
    });
    expect(await edit('a.txt', 'alpha', 'x')).toMatchObject({ ok: false, code: 'DENIED_HOOK' });
    expect(await auditLines(auditLog)).toEqual([
      expect.objectContaining({ decision: 'deny', decidedBy: 'hook', reason: 'frozen' }),
    ]);
  });
});
