import { describe, expect, it } from 'vitest';
import { createEditTools } from '../../src/tools/index.js';
import { makeWorkspace } from './workspace-fixture.js';

describe('tool input validation', () => {
  it('refuses to build tools without an explicit approver', async () => {
    const ws = await makeWorkspace();
    // @ts-expect-error approve is required on purpose
    expect(() => createEditTools({ root: ws.root })).toThrow(/approve/);
  });

  it('refuses a root that is not a folder', () => {
    expect(() => createEditTools({ root: '/definitely/not/here', approve: 'allow' })).toThrow(
      /not an existing folder/,
    );
  });

  it('answers an unknown tool with UNKNOWN_TOOL listing the real ones', async () => {
    const ws = await makeWorkspace();
    const result = await ws.tools().execute('delete_everything', {});
    expect(result).toMatchObject({ ok: false, code: 'UNKNOWN_TOOL' });
    expect(result.message).toContain('edit_file');
  });

  it.each([
    ['missing file_path', 'edit_file', { old_string: 'a', new_string: 'b' }, /file_path/],
    ['empty path', 'read_file', { file_path: '' }, /file_path/],
    ['wrong type', 'edit_file', { file_path: 'a.txt', old_string: 1, new_string: 'b' }, /old_string/],
    ['missing new_string', 'edit_file', { file_path: 'a.txt', old_string: 'x' }, /new_string/],
    ['unknown field', 'read_file', { file_path: 'a.txt', bogus: true }, /bogus/],
    ['negative offset', 'read_file', { file_path: 'a.txt', offset: 0 }, /offset/],
    ['edits not an array', 'multi_edit', { file_path: 'a.txt', edits: 'x' }, /edits/],
    ['empty edits', 'multi_edit', { file_path: 'a.txt', edits: [] }, /at least one/],
    [
      'range of one number',
      'edit_lines',
      { file_path: 'a.txt', edits: [{ range: [1], replacement: '' }] },
      /range/,
    ],
    [
      'replace_all not boolean',
      'edit_file',
      { file_path: 'a.txt', old_string: 'a', new_string: 'b', replace_all: 'yes' },
      /replace_all/,
    ],
  ])('%s → INVALID_INPUT naming the field', async (_name, tool, input, field) => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const result = await ws.tools().execute(tool, input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe('INVALID_INPUT');
    expect(result.message).toMatch(field);
    expect(await ws.text('a.txt')).toBe('alpha\n');
  });

  it.each([null, undefined, 42, 'not json', [1, 2], true])('never throws for input %p', async (input) => {
    const ws = await makeWorkspace();
    const result = await ws.tools().execute('edit_file', input);
    expect(result.ok).toBe(false);
  });

  it('accepts a JSON string of the input object', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const result = await ws.tools().execute('read_file', JSON.stringify({ file_path: 'a.txt' }));
    expect(result.ok).toBe(true);
  });

  it('maps common parameter aliases to the canonical names', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha beta\n' });
    const tools = ws.tools();
    expect((await tools.execute('read_file', { path: 'a.txt' })).ok).toBe(true);
    const result = await tools.execute('edit_file', {
      filePath: 'a.txt',
      oldString: 'beta',
      newString: 'gamma',
    });
    expect(result.ok).toBe(true);
    const again = await tools.execute('edit_file', {
      file_name: 'a.txt',
      old_str: 'gamma',
      new_str: 'delta',
    });
    expect(again.ok).toBe(true);
    expect(await ws.text('a.txt')).toBe('alpha delta\n');
    const multi = await tools.execute('multi_edit', {
      file_path: 'a.txt',
      edits: [{ old_text: 'alpha', new_text: 'omega' }],
    });
    expect(multi.ok).toBe(true);
    expect(await ws.text('a.txt')).toBe('omega delta\n');
  });

  it('takes "true" and "false" (as some models send them) for a boolean field, nothing else', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'x x\ny y\n' });
    const tools = ws.tools();
    await tools.execute('read_file', { file_path: 'a.txt' });
    const all = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'x',
      new_string: 'z',
      replace_all: 'true',
    });
    expect(all).toMatchObject({ ok: true, details: { replacements: 2 } });
    // Inside an array too, any case: "False" keeps the must-match-once rule, so the ambiguous y is refused.
    const once = await tools.execute('multi_edit', {
      file_path: 'a.txt',
      edits: [{ old_string: 'y', new_string: 'w', replace_all: 'False' }],
    });
    expect(once).toMatchObject({ ok: false, code: 'AMBIGUOUS' });
    for (const word of ['yes', '1', 'truthy', '']) {
      const refused = await tools.execute('edit_file', {
        file_path: 'a.txt',
        old_string: 'z',
        new_string: 'q',
        replace_all: word,
      });
      expect(refused).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    }
    expect(await ws.text('a.txt')).toBe('z z\ny y\n');
    // What a model is shown stays a boolean.
    const edit = tools.definitions.find((d) => d.name === 'edit_file')!;
    expect(edit.inputSchema).toMatchObject({ properties: { replace_all: { type: 'boolean' } } });
  });

  it('refuses a misspelled key, naming the parameter it is close to; a far one gets no guess (#28)', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\n' });
    const tools = ws.tools();
    const close = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_strng: 'one',
      new_string: 'two',
    });
    expect(close).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(close.message).toContain('did you mean "old_string" for "old_strng"?');
    const cased = await tools.execute('read_file', { file_path: 'a.txt', Off_Set: 2 });
    expect(cased.message).toContain('did you mean "offset" for "Off_Set"?');
    const far = await tools.execute('read_file', { file_path: 'a.txt', wait_for_previous: true });
    expect(far).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(far.message).toContain('wait_for_previous');
    expect(far.message).not.toContain('did you mean');
    // Never taken for the key it resembles: the file is unchanged.
    expect(await ws.text('a.txt')).toBe('one\n');
  });

  it('refuses an alias given together with its canonical name', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const result = await ws.tools().execute('read_file', { path: 'a.txt', file_path: 'a.txt' });
    expect(result).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
  });

  it('publishes JSON Schema definitions with canonical names and descriptions that teach the rules', async () => {
    const ws = await makeWorkspace();
    const { definitions } = ws.tools();
    expect(definitions.map((d) => d.name)).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'multi_edit',
      'edit_lines',
      'apply_patch',
      'undo_edit',
    ]);
    const edit = definitions.find((d) => d.name === 'edit_file')!;
    expect(edit.inputSchema).toMatchObject({
      type: 'object',
      required: ['file_path', 'old_string', 'new_string'],
    });
    expect(edit.description).toMatch(/exactly once/);
    expect(edit.description).toMatch(/replace_all/);
    expect(edit.description).toMatch(/line-number prefix/);
    expect(definitions.find((d) => d.name === 'edit_lines')!.description).toMatch(/EXCLUSIVE/);
    expect(definitions.find((d) => d.name === 'read_file')!.annotations.readOnlyHint).toBe(true);
  });
});

describe('input keys named like prototype members (issue #13)', () => {
  it.each([
    ['read_file', { file_path: 'a.txt', constructor: 1 }, /constructor/],
    ['read_file', { file_path: 'a.txt', toString: 'x' }, /toString/],
    [
      'edit_file',
      { file_path: 'a.txt', old_string: 'alpha', new_string: 'b', hasOwnProperty: true },
      /hasOwnProperty/,
    ],
    [
      'write_file',
      JSON.parse('{"file_path":"a.txt","content":"x","__proto__":{"content":"y"}}'),
      /__proto__/,
    ],
    ['write_file', '{"file_path":"a.txt","content":"x","__proto__":{"polluted":true}}', /__proto__/],
  ])('%s with %j → INVALID_INPUT naming the key, nothing written', async (tool, input, key) => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const result = await ws.tools().execute(tool, input);
    expect(result).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(result.message).toMatch(key);
    expect(await ws.text('a.txt')).toBe('alpha\n');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
