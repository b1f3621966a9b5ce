import { describe, expect, it } from 'vitest';
import { makeWorkspace, readAll, scriptedApprover } from '../tools/workspace-fixture.js';

/**
 * The syntax check as one of the gate's built-in checks (src/gate/syntax-check.ts): the error a change adds
 * is shown with the question and told to the model, written or refused; a change rule with `syntaxErrors`
 * asks past an allow rule, or refuses.
 */
const FILE = 'def f(x):\n    return x\n';

async function setup(options: Parameters<Awaited<ReturnType<typeof makeWorkspace>>['tools']>[0]) {
  const ws = await makeWorkspace({ 'a.py': FILE });
  const tools = ws.tools(options);
  const edit = async (to: string) => {
    await readAll(tools, 'a.py');
    return tools.execute('edit_file', { file_path: 'a.py', old_string: 'return x', new_string: to });
  };
  return { ws, edit };
}

describe('the syntax check in the gate', () => {
  it('shows the error a change adds with the question and tells the model, and lets a person decide', async () => {
    const person = scriptedApprover('once');
    const { edit, ws } = await setup({ approve: person.approver });
    const result = await edit('return (x');
    expect(result.ok).toBe(true);
    expect(person.asked[0]!.findings).toEqual([
      expect.objectContaining({
        kind: 'syntax',
        path: 'a.py',
        line: 2,
        severity: 'info',
        source: 'syntax:python',
      }),
    ]);
    expect(result.message).toMatch(/a\.py:2: cannot read "return \(x"/);
    expect(JSON.stringify(result)).toMatch(/syntax error this change adds/);
    expect(await ws.text('a.py')).toBe('def f(x):\n    return (x\n');
  });

  it('a change that keeps the file readable finds nothing', async () => {
    const person = scriptedApprover('once');
    const { edit } = await setup({ approve: person.approver });
    expect((await edit('return x * 2')).ok).toBe(true);
    expect(person.asked[0]!.findings ?? []).toEqual([]);
  });

  it('a rule with syntaxErrors asks past an allow rule', async () => {
    const person = scriptedApprover('once');
    const { edit } = await setup({
      approve: person.approver,
      policy: {
        rules: [
          { path: '**', action: 'allow' },
          { path: '**/*.py', action: 'ask', change: { syntaxErrors: true } },
        ],
      },
    });
    expect((await edit('return x * 3')).ok).toBe(true);
    expect(person.asked).toHaveLength(0);
    expect((await edit('return (x')).ok).toBe(true);
    expect(person.asked).toHaveLength(1);
  });

  it('a rule with syntaxErrors and deny refuses the change and leaves the file as it was', async () => {
    const { edit, ws } = await setup({
      approve: 'allow',
      policy: { rules: [{ path: '**', action: 'deny', change: { syntaxErrors: true } }] },
    });
    const result = await edit('return (x');
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).toMatch(/syntax error/);
    expect(await ws.text('a.py')).toBe(FILE);
  });
});
