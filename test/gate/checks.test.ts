import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/core/findings.js';
import { autoApprover } from '../../src/gate/approval.js';
import type { ChangeCheck } from '../../src/gate/checks.js';
import type { Screening } from '../../src/gate/gate.js';
import { tempFolder } from '../temp-folder.js';
import { makeWorkspace, readAll, scriptedApprover } from '../tools/workspace-fixture.js';

/**
 * The gate's one hook point for checks on a proposed change (issue #32): what a check finds reaches the
 * question and the audit line; 'ask' asks past an allow rule, a grant and --yes; 'deny' refuses.
 */
function finding(severity: Finding['severity']): ChangeCheck {
  return (proposal) => [
    {
      kind: 'rule',
      path: proposal.path,
      line: 1,
      message: `test says ${severity}`,
      severity,
      source: 'rule:test',
    },
  ];
}

async function setup(options: Parameters<Awaited<ReturnType<typeof makeWorkspace>>['tools']>[0]) {
  const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
  const auditLog = join(tempFolder('editgate-checks-'), 'audit.jsonl');
  const screenings: Screening[] = [];
  const tools = ws.tools({
    auditLog,
    onPreview: (_, screening) => void screenings.push(screening),
    ...options,
  });
  const edit = async (to: string) => {
    await readAll(tools, 'a.txt');
    return tools.execute('edit_file', { file_path: 'a.txt', old_string: 'alpha', new_string: to });
  };
  const audit = async () =>
    (await readFile(auditLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { ws, edit, audit, screenings, tools };
}

describe('checks on a proposal', () => {
  it("an 'ask' finding asks a person although an allow rule would let the change through", async () => {
    const person = scriptedApprover('once');
    const { edit, audit, screenings } = await setup({
      approve: person.approver,
      policy: { rules: [{ path: '**', action: 'allow' }] },
      checks: [finding('ask')],
    });
    const result = await edit('ALPHA');
    expect(result).toMatchObject({ ok: true, details: { decidedBy: 'user' } });
    expect(person.asked).toHaveLength(1);
    expect(person.asked[0]!.findings).toEqual([
      expect.objectContaining({ source: 'rule:test', severity: 'ask' }),
    ]);
    expect(screenings[0]).toMatchObject({
      ask: true,
      askedBy: [expect.objectContaining({ source: 'rule:test' })],
    });
    expect(await audit()).toEqual([
      expect.objectContaining({ decidedBy: 'user', askedBy: ['rule:test'], findings: expect.any(Array) }),
    ]);
  });

  it("an 'ask' finding asks past a session grant", async () => {
    const person = scriptedApprover('all', 'once');
    const { edit, tools } = await setup({
      approve: person.approver,
      checks: [(proposal) => (proposal.unifiedDiff.includes('SECOND') ? finding('ask')(proposal, {}) : [])],
    });
    expect((await edit('FIRST')).ok).toBe(true);
    expect(tools.session.grants.allChanges).toBe(true);
    await readAll(tools, 'a.txt');
    const second = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'FIRST',
      new_string: 'SECOND',
    });
    expect(second.ok).toBe(true);
    expect(person.asked).toHaveLength(2);
  });

  it("--yes does not answer an 'ask' finding: the person behind it is asked, or it is refused", async () => {
    const person = scriptedApprover('once');
    const withPerson = await setup({
      approve: autoApprover('--yes', { person: person.approver }),
      checks: [finding('ask')],
    });
    expect(await withPerson.edit('ALPHA')).toMatchObject({ ok: true, details: { decidedBy: 'user' } });
    expect(person.asked).toHaveLength(1);

    const alone = await setup({ approve: autoApprover('--yes'), checks: [finding('ask')] });
    const refused = await alone.edit('ALPHA');
    expect(refused).toMatchObject({ ok: false, code: 'DENIED_NO_APPROVER' });
    expect(refused.ok || refused.message).toContain('rule:test asks a person');
    expect(await readFile(join(alone.ws.root, 'a.txt'), 'utf8')).toBe('alpha\n');
  });

  it("a 'deny' finding refuses with the rule named, even under approve: 'allow'", async () => {
    const { edit, audit, ws } = await setup({ approve: 'allow', checks: [finding('deny')] });
    const result = await edit('ALPHA');
    expect(result).toMatchObject({ ok: false, code: 'DENIED_POLICY' });
    expect(result.ok || result.message).toContain('rule:test');
    expect(result.ok || result.message).toContain('a.txt:1: test says deny');
    expect(await audit()).toEqual([expect.objectContaining({ decidedBy: 'policy', code: 'DENIED_POLICY' })]);
    expect(await readFile(join(ws.root, 'a.txt'), 'utf8')).toBe('alpha\n');
  });

  it('a failing check is shown as such and does not stop the change', async () => {
    const person = scriptedApprover('once');
    const { edit } = await setup({
      approve: person.approver,
      checks: [
        function broken() {
          throw new Error('boom');
        },
      ],
    });
    expect((await edit('ALPHA')).ok).toBe(true);
    expect(person.asked[0]!.findings).toEqual([
      expect.objectContaining({
        severity: 'info',
        source: 'check:broken',
        message: expect.stringContaining('boom'),
      }),
    ]);
  });
});
