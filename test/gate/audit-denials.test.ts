import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autoApprover } from '../../src/gate/approval.js';
import { denyWithoutTerminal } from '../../src/terminal/no-terminal.js';
import type { CreateEditToolsOptions } from '../../src/tools/index.js';
import { tempFolder } from '../temp-folder.js';
import { makeWorkspace, readAll, scriptedApprover } from '../tools/workspace-fixture.js';

/**
 * Every refusal writes an audit line (issue #14, item 10): who refused (decidedBy), the refusal's code and
 * why, for a person's no, a policy rule (of a change or of a read), a hook, no one to ask, and a diff that
 * could not be shown whole.
 */
const files = { 'a.txt': 'alpha\n', 'secret/key.txt': 'k\n' };

async function setup(options: Partial<CreateEditToolsOptions>) {
  const ws = await makeWorkspace(files);
  const auditLog = join(tempFolder('editgate-denials-'), 'audit.jsonl');
  const tools = ws.tools({ auditLog, ...options });
  const lines = async () =>
    (await readFile(auditLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { ws, tools, lines };
}

describe('audit line for every denial', () => {
  it('a person who said no: user, DENIED_USER, with the reason', async () => {
    const { tools, lines } = await setup({ approve: scriptedApprover({ deny: 'not now' }).approver });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'alpha',
      new_string: 'x',
    });
    expect(result).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(await lines()).toEqual([
      expect.objectContaining({
        tool: 'edit_file',
        path: 'a.txt',
        decision: 'deny',
        decidedBy: 'user',
        code: 'DENIED_USER',
        reason: 'not now',
      }),
    ]);
  });

  it('no one to ask (no terminal): DENIED_NO_APPROVER, decided by editgate, with the message', async () => {
    const { ws, tools, lines } = await setup({ approve: denyWithoutTerminal() });
    const result = await tools.execute('write_file', { file_path: 'new.txt', content: 'n\n' });
    expect(result).toMatchObject({ ok: false, code: 'DENIED_NO_APPROVER' });
    const [line, ...rest] = await lines();
    expect(rest).toEqual([]);
    expect(line).toMatchObject({
      tool: 'write_file',
      path: 'new.txt',
      kind: 'create',
      decision: 'deny',
      decidedBy: 'editgate',
      code: 'DENIED_NO_APPROVER',
    });
    expect(line!.reason).toContain('there is no terminal to ask');
    await expect(ws.text('new.txt')).rejects.toThrow();
  });

  it('a policy rule: policy, DENIED_POLICY, with the rule', async () => {
    const rule = { tool: 'write_file', path: 'a.txt', action: 'deny' as const };
    const { tools, lines } = await setup({ approve: 'allow', policy: { rules: [rule] } });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('write_file', { file_path: 'a.txt', content: 'x\n' });
    expect(result).toMatchObject({ ok: false, code: 'DENIED_POLICY' });
    const [line] = await lines();
    expect(line).toMatchObject({ decision: 'deny', decidedBy: 'policy', code: 'DENIED_POLICY', rule });
    expect(line!.reason).toContain('Policy does not allow write_file on a.txt');
  });

  it('a rule that denies reading: an edit is refused as an edit, and the refusal is written down', async () => {
    const rule = { path: 'secret/**', action: 'deny' as const };
    const { tools, lines } = await setup({ approve: 'allow', policy: { rules: [rule] } });
    const result = await tools.execute('write_file', { file_path: 'secret/key.txt', content: 'x\n' });
    expect(result).toMatchObject({ ok: false, code: 'DENIED_POLICY' });
    expect(result.ok ? '' : result.message).toContain('Policy does not allow write_file on secret/key.txt');
    const read = await tools.execute('read_file', { file_path: 'secret/key.txt' });
    expect(read).toMatchObject({ ok: false, code: 'DENIED_POLICY' });
    expect(read.ok ? '' : read.message).toContain('Policy does not allow reading secret/key.txt');
    expect(await lines()).toEqual([
      expect.objectContaining({
        tool: 'write_file',
        path: 'secret/key.txt',
        kind: 'read',
        decidedBy: 'policy',
        rule,
      }),
      expect.objectContaining({
        tool: 'read_file',
        path: 'secret/key.txt',
        kind: 'read',
        decidedBy: 'policy',
        rule,
      }),
    ]);
  });

  it('a read the person refused, and a read no one could be asked about', async () => {
    const readsAsk = { policy: { rules: [{ tool: 'read_file', action: 'ask' as const }] } };
    const person = await setup({ approve: scriptedApprover('deny').approver, ...readsAsk });
    expect(await person.tools.execute('read_file', { file_path: 'a.txt' })).toMatchObject({
      code: 'DENIED_USER',
    });
    expect(await person.lines()).toEqual([
      expect.objectContaining({ tool: 'read_file', kind: 'read', decidedBy: 'user', code: 'DENIED_USER' }),
    ]);
    const nobody = await setup({ approve: denyWithoutTerminal(), ...readsAsk });
    expect(await nobody.tools.execute('read_file', { file_path: 'a.txt' })).toMatchObject({
      code: 'DENIED_NO_APPROVER',
    });
    expect(await nobody.lines()).toEqual([
      expect.objectContaining({ kind: 'read', decidedBy: 'editgate', code: 'DENIED_NO_APPROVER' }),
    ]);
  });

  it("approve: 'deny' is no person's no: auto, named", async () => {
    const { tools, lines } = await setup({ approve: 'deny' });
    expect(await tools.execute('write_file', { file_path: 'n.txt', content: 'x' })).toMatchObject({
      code: 'DENIED_USER',
    });
    expect((await lines())[0]).toMatchObject({
      decidedBy: 'auto',
      auto: "approve: 'deny'",
      code: 'DENIED_USER',
    });
  });

  it('a before-change hook: hook, DENIED_HOOK, with its reason', async () => {
    const { tools, lines } = await setup({
      approve: autoApprover('--yes'),
      hooks: { beforeChange: () => ({ deny: 'frozen' }) },
    });
    expect(await tools.execute('write_file', { file_path: 'n.txt', content: 'x' })).toMatchObject({
      code: 'DENIED_HOOK',
    });
    expect(await lines()).toEqual([
      expect.objectContaining({ decidedBy: 'hook', code: 'DENIED_HOOK', reason: 'frozen' }),
    ]);
  });

  it('a change too large to show whole: decided by editgate, TOO_LARGE', async () => {
    const { ws, tools, lines } = await setup({ approve: scriptedApprover().approver, streamThreshold: 1000 });
    await ws.put('big.txt', 'x\n'.repeat(600));
    await readAll(tools, 'big.txt');
    const result = await tools.execute('edit_file', {
      file_path: 'big.txt',
      old_string: 'x',
      new_string: 'y',
      replace_all: true,
    });
    expect(result).toMatchObject({ ok: false, code: 'TOO_LARGE' });
    expect(await lines()).toEqual([
      expect.objectContaining({
        path: 'big.txt',
        decision: 'deny',
        decidedBy: 'editgate',
        code: 'TOO_LARGE',
      }),
    ]);
  });
});
