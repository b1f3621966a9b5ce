import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autoApprover } from '../../src/gate/approval.js';
import type { PolicyRule } from '../../src/gate/policy.js';
import { PolicyEngine } from '../../src/gate/policy.js';
import type { CreateEditToolsOptions } from '../../src/tools/index.js';
import { allText, fakeGithubToken, freshPrivateKey } from '../secret-fixtures.js';
import { tempFolder } from '../temp-folder.js';
import { makeWorkspace, readAll, scriptedApprover } from '../tools/workspace-fixture.js';

/** Rules on what a change does (issue #32, item 1) and secrets in what it adds (item 2), from the library. */
const many = (n: number, word = 'line') =>
  Array.from({ length: n }, (_, i) => `${word} ${i + 1}`).join('\n') + '\n';

async function setup(
  rules: PolicyRule[],
  approve: CreateEditToolsOptions['approve'],
  files: Record<string, string> = {},
) {
  const ws = await makeWorkspace({ 'big.txt': many(50), 'a.txt': 'alpha\n', ...files });
  const auditLog = join(tempFolder('editgate-change-rules-'), 'audit.jsonl');
  const tools = ws.tools({ auditLog, approve, policy: { rules } });
  const audit = async () =>
    (await readFile(auditLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { ws, tools, audit, auditLog };
}

describe('change rules', () => {
  it('a rule on removed lines asks past an allow rule and a session grant, and the question and audit line name it', async () => {
    const person = scriptedApprover('all', 'once');
    const { tools, audit } = await setup(
      [
        { path: '**', action: 'allow' },
        { change: { removedOver: 10 }, action: 'ask', name: 'large deletion' },
      ],
      person.approver,
    );
    // Small: the allow rule lets it through, nobody asked.
    await readAll(tools, 'a.txt');
    expect(
      await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'alpha', new_string: 'ALPHA' }),
    ).toMatchObject({
      ok: true,
      details: { decidedBy: 'policy' },
    });
    expect(person.asked).toHaveLength(0);
    // Large: asked, although the allow rule covers it.
    await readAll(tools, 'big.txt');
    const result = await tools.execute('write_file', { file_path: 'big.txt', content: 'short\n' });
    expect(result).toMatchObject({
      ok: true,
      details: { decidedBy: 'user', askedBy: ['rule:large deletion'] },
    });
    expect(person.asked[0]!.findings).toEqual([
      expect.objectContaining({
        kind: 'rule',
        path: 'big.txt',
        severity: 'ask',
        source: 'rule:large deletion',
        message: 'removes 50 lines (more than 10): asked by rule large deletion',
      }),
    ]);
    expect(result.ok && result.message).toContain('[rule:large deletion]');
    // The person said "all": a grant, which the rule still asks past.
    expect(tools.session.grants.allChanges).toBe(true);
    expect((await tools.execute('write_file', { file_path: 'big.txt', content: many(40, 'again') })).ok).toBe(
      true,
    );
    expect(person.asked).toHaveLength(1);
    expect((await tools.execute('write_file', { file_path: 'big.txt', content: 'short again\n' })).ok).toBe(
      true,
    );
    expect(person.asked).toHaveLength(2);
    const lines = await audit();
    expect(lines.at(-1)).toMatchObject({ decidedBy: 'user', askedBy: ['rule:large deletion'] });
  });

  it('--yes does not answer a change rule; with no person behind it the change is refused and says which rule', async () => {
    const { tools, ws } = await setup([{ change: { deleted: true }, action: 'ask' }], autoApprover('--yes'));
    await readAll(tools, 'a.txt');
    const result = await tools.execute('write_file', { file_path: 'a.txt', content: '' });
    // Emptied, not deleted: --yes lets it through.
    expect(result.ok).toBe(true);
    const deleted = await tools.execute('apply_patch', {
      patch: '*** Begin Patch\n*** Delete File: big.txt\n*** End Patch',
    });
    expect(deleted).toMatchObject({ ok: false, code: 'DENIED_NO_APPROVER' });
    expect(deleted.ok || deleted.message).toContain('rule:deleted asks a person');
    expect(await ws.text('big.txt')).toBe(many(50));
  });

  it('a deny rule refuses with the rule named, whoever would have allowed it', async () => {
    const { tools, audit, ws } = await setup(
      [
        { path: '**', action: 'allow' },
        { change: { lockfile: true }, action: 'deny' },
      ],
      'allow',
      { 'package-lock.json': '{}\n' },
    );
    await readAll(tools, 'package-lock.json');
    const result = await tools.execute('write_file', {
      file_path: 'package-lock.json',
      content: '{"a":1}\n',
    });
    expect(result).toMatchObject({ ok: false, code: 'DENIED_POLICY' });
    expect(result.ok || result.message).toContain('(rule:lockfile)');
    expect(result.ok || result.message).toContain('changes a lock file: refused by rule lockfile');
    expect(await audit()).toEqual([
      expect.objectContaining({
        decidedBy: 'policy',
        code: 'DENIED_POLICY',
        findings: [expect.objectContaining({ source: 'rule:lockfile' })],
      }),
    ]);
    expect(await ws.text('package-lock.json')).toBe('{}\n');
  });

  it('each condition: emptied, sizeOver, addedOver, generated (marker and glob), moved, binary', async () => {
    const person = scriptedApprover(...Array(8).fill('once'));
    const { tools } = await setup(
      [
        { change: { emptied: true }, action: 'ask' },
        { change: { sizeOver: 100 }, action: 'ask' },
        { change: { addedOver: 3 }, action: 'ask' },
        { change: { generated: ['gen/**'] }, action: 'ask' },
        { change: { moved: true }, action: 'ask' },
        { change: { binary: true }, action: 'ask' },
      ],
      person.approver,
      {
        'out.ts': '// @generated by a tool\nexport const x = 1;\n',
        'gen/a.ts': 'x\n',
        'logo.svg.png': 'not really\n',
      },
    );
    const sources = async (run: () => Promise<unknown>) => {
      const before = person.asked.length;
      await run();
      return (person.asked[before]?.findings ?? []).map((finding) => finding.source);
    };
    await readAll(tools, 'a.txt');
    expect(await sources(() => tools.execute('write_file', { file_path: 'a.txt', content: '' }))).toEqual([
      'rule:emptied',
    ]);
    expect(
      await sources(() => tools.execute('write_file', { file_path: 'n.txt', content: 'x'.repeat(101) })),
    ).toEqual(['rule:sizeOver 100']);
    expect(
      await sources(() => tools.execute('write_file', { file_path: 'm.txt', content: many(4) })),
    ).toEqual(['rule:addedOver 3']);
    await readAll(tools, 'out.ts');
    expect(
      await sources(() =>
        tools.execute('edit_file', { file_path: 'out.ts', old_string: '1', new_string: '2' }),
      ),
    ).toEqual(['rule:generated gen/**']);
    await readAll(tools, 'gen/a.ts');
    expect(
      await sources(() => tools.execute('write_file', { file_path: 'gen/a.ts', content: 'y\n' })),
    ).toEqual(['rule:generated gen/**']);
    expect(
      await sources(() =>
        tools.execute('apply_patch', {
          patch: '*** Begin Patch\n*** Update File: m.txt\n*** Move to: moved.txt\n*** End Patch',
        }),
      ),
    ).toEqual(['rule:moved', 'rule:addedOver 3']);
    await readAll(tools, 'logo.svg.png');
    expect(
      await sources(() => tools.execute('write_file', { file_path: 'logo.svg.png', content: 'still not\n' })),
    ).toEqual(['rule:binary']);
  });

  it('a bad change rule is refused when the policy is built, saying what to write', () => {
    expect(() => new PolicyEngine({ rules: [{ change: { removedOver: -1 }, action: 'ask' }] })).toThrow(
      /whole number/,
    );
    expect(() => new PolicyEngine({ rules: [{ change: {}, action: 'ask' }] })).toThrow(
      /at least one condition/,
    );
    expect(() => new PolicyEngine({ rules: [{ change: { deleted: true }, action: 'allow' }] })).toThrow(
      /asks or denies/,
    );
    expect(() => new PolicyEngine({ rules: [{ change: { bogus: 1 } as never, action: 'ask' }] })).toThrow(
      /"bogus", which is not a condition/,
    );
    expect(() => new PolicyEngine({ rules: [{ path: 'x', action: 'ask', name: 'n' }] })).toThrow(
      /"name" is for a rule with "change"/,
    );
  });
});

describe('secrets in added lines', () => {
  it('a token is stopped: the question shows it masked, and its value is in no output', async () => {
    const token = fakeGithubToken();
    const person = scriptedApprover({ deny: 'no secrets please' });
    const { tools, auditLog, ws } = await setup([{ path: '**', action: 'allow' }], person.approver);
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'alpha',
      new_string: `alpha\nconst token = "${token}";`,
    });
    expect(result).toMatchObject({ ok: false, code: 'DENIED_USER' });
    const request = person.asked[0]!;
    expect(request.findings).toEqual([
      expect.objectContaining({
        kind: 'secret',
        path: 'a.txt',
        line: 2,
        severity: 'ask',
        source: 'secret:github',
      }),
    ]);
    expect(request.findings![0]!.message).toContain(`${token.slice(0, 4)}****`);
    expect(allText(request)).not.toContain(token);
    expect(request.unifiedDiff).toContain('+const token = "ghp_****');
    expect(allText(result)).not.toContain(token);
    expect(result.ok || result.message).toContain('a.txt:2: Github token');
    expect(await readFile(auditLog, 'utf8')).not.toContain(token);
    expect(await ws.text('a.txt')).toBe('alpha\n');
  });

  it('written when the person says yes: the result tells the line, not the value (message and details)', async () => {
    const key = freshPrivateKey();
    const person = scriptedApprover('once');
    const { tools, auditLog } = await setup([], person.approver);
    const result = await tools.execute('write_file', { file_path: 'key.pem', content: key });
    expect(result).toMatchObject({
      ok: true,
      details: { findings: [expect.objectContaining({ kind: 'secret', line: 1 })] },
    });
    for (const line of key.split('\n').slice(1, -2)) {
      expect(allText(result)).not.toContain(line);
      expect(allText(person.asked)).not.toContain(line);
      expect(await readFile(auditLog, 'utf8')).not.toContain(line);
    }
    expect(result.ok && result.message).toContain('key.pem:1: Private key');
  });

  it('a secrets rule that denies refuses even under --yes; a disable comment from the model does not switch the check off', async () => {
    const token = fakeGithubToken();
    const { tools, ws } = await setup(
      [{ change: { secrets: true }, action: 'deny', name: 'no secrets' }],
      autoApprover('--yes'),
    );
    const result = await tools.execute('write_file', {
      file_path: 'c.ts',
      content: `// secretlint-disable\nexport const t = "${token}";\n`,
    });
    expect(result).toMatchObject({ ok: false, code: 'DENIED_POLICY' });
    expect(result.ok || result.message).toContain('rule:no secrets');
    expect(result.ok || result.message).toContain('c.ts:2');
    expect(allText(result)).not.toContain(token);
    await expect(ws.text('c.ts')).rejects.toThrow();
  });
});
