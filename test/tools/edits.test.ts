import { utimes } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, readAll } from './workspace-fixture.js';

describe('read_file', () => {
  it('numbers lines like cat -n and counts them as edit_lines does', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\r\ntwo\nthree' });
    const result = await readAll(ws.tools(), 'a.txt');
    expect(result.message.split('\n').slice(0, 3)).toEqual(['     1\tone', '     2\ttwo', '     3\tthree']);
    expect(result.message).toContain('does not end with a newline');
    expect(result.details).toMatchObject({ lines: 3, complete: true });
  });

  it('says when a read was partial, and paging through every line counts as a full read', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const ws = await makeWorkspace({ 'a.txt': lines });
    const tools = ws.tools({ readLimit: 10 });
    const first = await tools.execute('read_file', { file_path: 'a.txt' });
    expect(first.message).toContain('Showing lines 1-10 of 30');
    expect(first.message).toContain('offset=11');
    const early = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'line 25\n',
      new_string: 'twenty-five\n',
    });
    expect(early).toMatchObject({ ok: false, code: 'PARTIAL_READ', details: { offset: 25, limit: 1 } });
    await tools.execute('read_file', { file_path: 'a.txt', offset: 11, limit: 10 });
    const last = await tools.execute('read_file', { file_path: 'a.txt', offset: 21 });
    expect(last.message).toContain('seen every line');
    const edit = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'line 25\n',
      new_string: 'twenty-five\n',
    });
    expect(edit.ok).toBe(true);
  });

  it('refuses an offset past the end with the line count', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'a\nb\n' });
    const result = await ws.tools().execute('read_file', { file_path: 'a.txt', offset: 5 });
    expect(result).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(result.message).toContain('has 2 lines');
  });

  it('describes a binary file instead of returning its bytes', async () => {
    const ws = await makeWorkspace({
      'img.bin': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 0, 1, 2]),
    });
    const result = await ws.tools().execute('read_file', { file_path: 'img.bin' });
    expect(result).toMatchObject({ ok: false, code: 'BINARY' });
  });

  it('reports a missing file with what to do', async () => {
    const ws = await makeWorkspace();
    const result = await ws.tools().execute('read_file', { file_path: 'nope.txt' });
    expect(result).toMatchObject({ ok: false, code: 'FILE_NOT_FOUND' });
    expect(result.message).toContain('write_file');
  });

  it('refuses paths outside the root', async () => {
    const ws = await makeWorkspace();
    const result = await ws.tools().execute('read_file', { file_path: '../../etc/passwd' });
    expect(result).toMatchObject({ ok: false, code: 'OUTSIDE_ROOT' });
  });
});

describe('encodings', () => {
  const latin1 = Buffer.from('caf\xe9 = 1\nna\xefve = 2\n', 'latin1');

  it('remembers the encoding read_file was given, so an edit without one works and keeps the bytes latin1', async () => {
    const ws = await makeWorkspace({ 'a.txt': latin1 });
    const tools = ws.tools();
    expect(await tools.execute('read_file', { file_path: 'a.txt', encoding: 'latin1' })).toMatchObject({
      ok: true,
    });
    const edit = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'café = 1',
      new_string: 'café = 3',
    });
    expect(edit).toMatchObject({ ok: true });
    expect(await ws.bytes('a.txt')).toEqual(Buffer.from('caf\xe9 = 3\nna\xefve = 2\n', 'latin1'));
    // A later read without encoding uses it too.
    const again = await tools.execute('read_file', { file_path: 'a.txt' });
    expect(again.ok && again.message).toContain('naïve = 2');
  });

  it('names the encoding parameter when a file is not UTF-8 and none was given', async () => {
    const ws = await makeWorkspace({ 'a.txt': latin1 });
    const result = await ws.tools().execute('read_file', { file_path: 'a.txt' });
    expect(result).toMatchObject({ ok: false, code: 'ENCODING' });
    if (!result.ok) expect(result.message).toMatch(/encoding parameter of read_file .*encoding: "latin1"/s);
  });
});

describe('placeholders for code left out', () => {
  const source = 'class A {\n  one() {}\n  two() {}\n}\n';

  it('refuses them in edit_file, multi_edit, write_file and edit_lines, writing nothing', async () => {
    const ws = await makeWorkspace({ 'a.ts': source });
    const tools = ws.tools();
    await readAll(tools, 'a.ts');
    const calls: [string, unknown][] = [
      [
        'edit_file',
        { file_path: 'a.ts', old_string: '  two() {}\n', new_string: '  // ... existing methods\n' },
      ],
      [
        'multi_edit',
        {
          file_path: 'a.ts',
          edits: [
            { old_string: 'one', new_string: 'uno' },
            { old_string: '  two() {}', new_string: '  (existing methods)' },
          ],
        },
      ],
      ['write_file', { file_path: 'a.ts', content: 'class A {\n  // ... rest of the code unchanged\n}\n' }],
      [
        'edit_lines',
        {
          file_path: 'a.ts',
          edits: [{ range: [2, 4], replacement: '  // ... rest of the class unchanged\n' }],
        },
      ],
    ];
    for (const [tool, input] of calls) {
      const result = await tools.execute(tool, input);
      expect(result, tool).toMatchObject({
        ok: false,
        code: 'INVALID_INPUT',
        details: { reason: 'placeholder' },
      });
      if (!result.ok) expect(result.message).toMatch(/placeholder.*Write the real code/s);
    }
    expect(await ws.text('a.ts')).toBe(source);
  });

  it('refuses them in streamed edit_lines with the in-memory message, and keeps one the lines had', async () => {
    const big = `class A {\n${'  x();\n'.repeat(400)}  // ... rest of the code unchanged\n}\n`;
    const placeholderAt = 402;
    const edits = [{ range: [2, 5], replacement: '  // ... rest of the class unchanged\n' }];
    const refusals: string[] = [];
    for (const streamThreshold of [1000, 1_000_000]) {
      const ws = await makeWorkspace({ 'a.ts': big });
      const tools = ws.tools({ streamThreshold });
      await readAll(tools, 'a.ts');
      const result = await tools.execute('edit_lines', { file_path: 'a.ts', edits });
      expect(result, `threshold ${streamThreshold}`).toMatchObject({
        ok: false,
        code: 'INVALID_INPUT',
        details: { reason: 'placeholder', field: 'replacement', line: 1 },
      });
      if (!result.ok) refusals.push(result.message);
      expect(await ws.text('a.ts')).toBe(big);
      // The replaced lines held that placeholder already: moving it is no new omission.
      await readAll(tools, 'a.ts');
      const kept = await tools.execute('edit_lines', {
        file_path: 'a.ts',
        edits: [
          {
            range: [placeholderAt - 1, placeholderAt + 1],
            replacement: '  // ... rest of the code unchanged\n',
          },
        ],
      });
      expect(kept, `threshold ${streamThreshold}`).toMatchObject({ ok: true });
    }
    // Streamed (first) and in memory: the same words.
    expect(refusals[0]).toBe(refusals[1]);
  });

  it('refuses them in apply_patch, for an added file and for a hunk, before reading any file', async () => {
    const ws = await makeWorkspace({ 'a.ts': source });
    const tools = ws.tools();
    const hunk = [
      '*** Begin Patch',
      '*** Update File: a.ts',
      ' class A {',
      '   one() {}',
      '-  two() {}',
      '+  // ... existing methods',
      ' }',
      '*** End Patch',
    ].join('\n');
    const added = [
      '*** Begin Patch',
      '*** Add File: b.ts',
      '+// ... rest of the code here',
      '*** End Patch',
    ].join('\n');
    for (const patch of [hunk, added]) {
      const result = await tools.execute('apply_patch', { patch });
      expect(result).toMatchObject({ ok: false, code: 'INVALID_INPUT', details: { reason: 'placeholder' } });
      if (!result.ok) expect(result.message).toMatch(/placeholder.*Write the real code/s);
    }
    expect(await ws.text('a.ts')).toBe(source);
    await expect(ws.text('b.ts')).rejects.toThrow();
    // A hunk whose old side had the placeholder line already brings in none.
    const withOne = 'class A {\n  // ... existing methods\n}\n';
    await ws.put('c.ts', withOne);
    const moved = await ws.tools({ approve: 'allow' }).execute('apply_patch', {
      patch: [
        '*** Begin Patch',
        '*** Update File: c.ts',
        ' class A {',
        '+  three() {}',
        '   // ... existing methods',
        ' }',
        '*** End Patch',
      ].join('\n'),
    });
    expect(moved.ok).toBe(true);
  });

  it('lets them through with allowPlaceholders', async () => {
    const ws = await makeWorkspace({ 'a.ts': source });
    const tools = ws.tools({ allowPlaceholders: true });
    await readAll(tools, 'a.ts');
    const result = await tools.execute('edit_file', {
      file_path: 'a.ts',
      old_string: '  two() {}\n',
      new_string: '  // ... existing methods\n',
    });
    expect(result.ok).toBe(true);
  });
});

describe('edit_file', () => {
  it('replaces a unique string and shows the changed region with line numbers', async () => {
    const ws = await makeWorkspace({ 'a.ts': 'const a = 1;\nconst b = 2;\nconst c = 3;\n' });
    const tools = ws.tools();
    await readAll(tools, 'a.ts');
    const result = await tools.execute('edit_file', {
      file_path: 'a.ts',
      old_string: 'b = 2',
      new_string: 'b = 20',
    });
    expect(result.ok).toBe(true);
    expect(await ws.text('a.ts')).toBe('const a = 1;\nconst b = 20;\nconst c = 3;\n');
    expect(result.message).toContain('Edited a.ts: 1 replacement, +1 -1 lines.');
    expect(result.message).toContain('     2\tconst b = 20;');
  });

  it('replaces every occurrence with replace_all and counts them', async () => {
    const ws = await makeWorkspace({ 'a.ts': 'foo(); foo();\nfoo();\n' });
    const tools = ws.tools();
    await readAll(tools, 'a.ts');
    const result = await tools.execute('edit_file', {
      file_path: 'a.ts',
      old_string: 'foo',
      new_string: 'bar',
      replace_all: true,
    });
    expect(result.ok).toBe(true);
    expect(result.message).toContain('3 replacements');
    expect(await ws.text('a.ts')).toBe('bar(); bar();\nbar();\n');
  });

  it('refuses two occurrences without replace_all, giving the count and the lines', async () => {
    const ws = await makeWorkspace({ 'a.ts': 'x = 1;\ny = 2;\nx = 1;\n' });
    const tools = ws.tools();
    await readAll(tools, 'a.ts');
    const result = await tools.execute('edit_file', {
      file_path: 'a.ts',
      old_string: 'x = 1;',
      new_string: 'x = 3;',
    });
    expect(result).toMatchObject({ ok: false, code: 'AMBIGUOUS' });
    expect(result.message).toMatch(/2/);
    expect(result.message).toMatch(/1.*3/);
    expect(await ws.text('a.ts')).toBe('x = 1;\ny = 2;\nx = 1;\n');
  });

  it('reports old text not found with the closest region', async () => {
    const ws = await makeWorkspace({ 'a.ts': 'function hello() {\n  return 1;\n}\n' });
    const tools = ws.tools();
    await readAll(tools, 'a.ts');
    const result = await tools.execute('edit_file', {
      file_path: 'a.ts',
      old_string: 'function helo() {',
      new_string: 'function hi() {',
    });
    expect(result).toMatchObject({ ok: false, code: 'NOT_FOUND' });
    expect(result.message).toMatch(/line 1/i);
  });

  it('refuses identical strings', async () => {
    const ws = await makeWorkspace({ 'a.ts': 'a\n' });
    const tools = ws.tools();
    await readAll(tools, 'a.ts');
    const result = await tools.execute('edit_file', { file_path: 'a.ts', old_string: 'a', new_string: 'a' });
    expect(result).toMatchObject({ ok: false, code: 'NO_CHANGE' });
  });

  it('creates a missing file from an empty old_string, and refuses that on a non-empty file', async () => {
    const ws = await makeWorkspace({ 'full.txt': 'content\n' });
    const tools = ws.tools();
    const created = await tools.execute('edit_file', {
      file_path: 'src/new.ts',
      old_string: '',
      new_string: 'x\n',
    });
    expect(created.ok).toBe(true);
    expect(created.message).toContain('Created src/new.ts');
    expect(await ws.text('src/new.ts')).toBe('x\n');
    await readAll(tools, 'full.txt');
    const refused = await tools.execute('edit_file', {
      file_path: 'full.txt',
      old_string: '',
      new_string: 'y',
    });
    expect(refused).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(await ws.text('full.txt')).toBe('content\n');
  });

  it('reports a missing file for a non-empty old_string', async () => {
    const ws = await makeWorkspace();
    const result = await ws
      .tools()
      .execute('edit_file', { file_path: 'x.ts', old_string: 'a', new_string: 'b' });
    expect(result).toMatchObject({ ok: false, code: 'FILE_NOT_FOUND' });
  });

  it('allows an edit within the lines read, and refuses one that touches lines never shown', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`);
    lines[89] = 'line 50'; // the same text again, on a line never read
    const ws = await makeWorkspace({ 'a.txt': `${lines.join('\n')}\n` });
    const tools = ws.tools();
    await tools.execute('read_file', { file_path: 'a.txt', offset: 40, limit: 21 }); // lines 40-60
    const edit = (old_string: string, new_string: string) =>
      tools.execute('edit_file', { file_path: 'a.txt', old_string, new_string });
    // Uniqueness is still judged over the whole file.
    expect(await edit('line 50\n', 'fifty\n')).toMatchObject({ ok: false, code: 'AMBIGUOUS' });
    expect(await edit('line 51\nline 52\n', 'both\n')).toMatchObject({ ok: true });
    const outside = await edit('line 10\n', 'ten\n');
    expect(outside).toMatchObject({ ok: false, code: 'PARTIAL_READ', details: { offset: 10, limit: 1 } });
    if (!outside.ok) expect(outside.message).toMatch(/line 10 .*read_file \(offset 10, limit 1\)/);
    // After the write, what was read and kept (and what was written) still counts, and nothing more.
    expect(await edit('line 55\n', 'fifty-five\n')).toMatchObject({ ok: true });
    expect(await edit('line 10\n', 'ten\n')).toMatchObject({ ok: false, code: 'PARTIAL_READ' });
    expect(await edit('line 61\n', 'sixty-one\n')).toMatchObject({ ok: false, code: 'PARTIAL_READ' });
  });

  it('applies the region rule to edit_lines and never to write_file', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    const ws = await makeWorkspace({ 'a.txt': `${lines.join('\n')}\n` });
    const tools = ws.tools();
    await tools.execute('read_file', { file_path: 'a.txt', offset: 10, limit: 5 }); // lines 10-14
    const editLines = (range: [number, number]) =>
      tools.execute('edit_lines', { file_path: 'a.txt', edits: [{ range, replacement: 'new\n' }] });
    expect(await editLines([20, 21])).toMatchObject({ ok: false, code: 'PARTIAL_READ' });
    expect(await editLines([25, 25])).toMatchObject({ ok: false, code: 'PARTIAL_READ' }); // an insert among unseen lines
    expect(await tools.execute('write_file', { file_path: 'a.txt', content: 'all\n' })).toMatchObject({
      ok: false,
      code: 'PARTIAL_READ',
    });
    expect(await ws.text('a.txt')).toBe(`${lines.join('\n')}\n`);
    expect(await editLines([15, 15])).toMatchObject({ ok: true }); // right after the last line read
  });

  it('requires a read first: never read, partly read, stale', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\ntwo\nthree\n' });
    const tools = ws.tools();
    const edit = { file_path: 'a.txt', old_string: 'two', new_string: '2' };
    expect(await tools.execute('edit_file', edit)).toMatchObject({ ok: false, code: 'NOT_READ' });
    await tools.execute('read_file', { file_path: 'a.txt', limit: 1 });
    expect(await tools.execute('edit_file', edit)).toMatchObject({ ok: false, code: 'PARTIAL_READ' });
    await readAll(tools, 'a.txt');
    await ws.put('a.txt', 'one\ntwo\nthree\nfour\n');
    expect(await tools.execute('edit_file', edit)).toMatchObject({ ok: false, code: 'STALE' });
    expect(await ws.text('a.txt')).toBe('one\ntwo\nthree\nfour\n');
  });

  it('does not call a touched but unchanged file stale', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\n' });
    const tools = ws.tools();
    await readAll(tools, 'a.txt');
    const later = new Date(Date.now() + 60_000);
    await utimes(ws.path('a.txt'), later, later);
    const result = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'one',
      new_string: '1',
    });
    expect(result.ok).toBe(true);
  });

  it('lets the same file be edited twice in a row without a new read', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\n' });
    const tools = ws.tools();
    await readAll(tools, 'a.txt');
    expect(
      (await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'one', new_string: 'two' })).ok,
    ).toBe(true);
    expect(
      (await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'two', new_string: 'three' })).ok,
    ).toBe(true);
    expect(await ws.text('a.txt')).toBe('three\n');
  });

  it('keeps CRLF line endings and a BOM', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const ws = await makeWorkspace({ 'a.cs': Buffer.concat([bom, Buffer.from('a\r\nb\r\nc\r\n')]) });
    const tools = ws.tools();
    await readAll(tools, 'a.cs');
    const result = await tools.execute('edit_file', {
      file_path: 'a.cs',
      old_string: 'a\nb',
      new_string: 'a\nB\nB2',
    });
    expect(result.ok).toBe(true);
    expect(await ws.bytes('a.cs')).toEqual(Buffer.concat([bom, Buffer.from('a\r\nB\r\nB2\r\nc\r\n')]));
  });

  it('can work without read-before-edit when configured so', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\n' });
    const result = await ws
      .tools({ requireReadBeforeEdit: false })
      .execute('edit_file', { file_path: 'a.txt', old_string: 'one', new_string: '1' });
    expect(result.ok).toBe(true);
  });
});

describe('multi_edit', () => {
  it('applies edits in order as one change', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\nbeta\ngamma\n' });
    const tools = ws.tools();
    await readAll(tools, 'a.txt');
    const result = await tools.execute('multi_edit', {
      file_path: 'a.txt',
      edits: [
        { old_string: 'alpha', new_string: 'ALPHA' },
        { old_string: 'ALPHA\nbeta', new_string: 'ALPHA\nBETA' },
      ],
    });
    expect(result.ok).toBe(true);
    expect(await ws.text('a.txt')).toBe('ALPHA\nBETA\ngamma\n');
  });

  it('is all or nothing: one failing edit leaves the file as it was and names the edit', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\nbeta\n' });
    const tools = ws.tools();
    await readAll(tools, 'a.txt');
    const result = await tools.execute('multi_edit', {
      file_path: 'a.txt',
      edits: [
        { old_string: 'alpha', new_string: 'ALPHA' },
        { old_string: 'missing', new_string: 'x' },
      ],
    });
    expect(result).toMatchObject({ ok: false, code: 'NOT_FOUND' });
    expect(result.message).toMatch(/2/);
    expect(await ws.text('a.txt')).toBe('alpha\nbeta\n');
  });

  it('refuses an edit whose strings are identical, naming it', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const tools = ws.tools();
    await readAll(tools, 'a.txt');
    const result = await tools.execute('multi_edit', {
      file_path: 'a.txt',
      edits: [
        { old_string: 'alpha', new_string: 'beta' },
        { old_string: 'x', new_string: 'x' },
      ],
    });
    expect(result).toMatchObject({ ok: false, code: 'NO_CHANGE' });
    expect(result.message).toContain('edit 2');
  });
});

describe('edit_lines', () => {
  const five = 'l1\nl2\nl3\nl4\nl5\n';

  it.each([
    ['insert before line 2', [{ range: [2, 2], replacement: 'new' }], 'l1\nnew\nl2\nl3\nl4\nl5\n'],
    ['replace line 3', [{ range: [3, 4], replacement: 'three\n' }], 'l1\nl2\nthree\nl4\nl5\n'],
    ['replace lines 2-4 with two lines', [{ range: [2, 5], replacement: 'a\nb' }], 'l1\na\nb\nl5\n'],
    ['delete lines 1-2', [{ range: [1, 3], replacement: '' }], 'l3\nl4\nl5\n'],
    ['append', [{ range: [6, 6], replacement: 'l6' }], 'l1\nl2\nl3\nl4\nl5\nl6\n'],
    [
      'two ranges at once',
      [
        { range: [1, 2], replacement: 'first' },
        { range: [5, 6], replacement: 'last' },
      ],
      'first\nl2\nl3\nl4\nlast\n',
    ],
  ])('%s', async (_name, edits, expected) => {
    const ws = await makeWorkspace({ 'a.txt': five });
    const tools = ws.tools();
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_lines', { file_path: 'a.txt', edits });
    expect(result.ok).toBe(true);
    expect(await ws.text('a.txt')).toBe(expected);
  });

  it.each([
    [
      'unsorted',
      [
        { range: [4, 5], replacement: 'x' },
        { range: [1, 2], replacement: 'y' },
      ],
    ],
    [
      'overlapping',
      [
        { range: [1, 4], replacement: 'x' },
        { range: [3, 5], replacement: 'y' },
      ],
    ],
    ['out of range', [{ range: [7, 8], replacement: 'x' }]],
    ['end before start', [{ range: [4, 2], replacement: 'x' }]],
    ['zero', [{ range: [0, 1], replacement: 'x' }]],
  ])('%s ranges → INVALID_RANGE, nothing written', async (_name, edits) => {
    const ws = await makeWorkspace({ 'a.txt': five });
    const tools = ws.tools();
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_lines', { file_path: 'a.txt', edits });
    expect(result).toMatchObject({ ok: false, code: 'INVALID_RANGE' });
    expect(await ws.text('a.txt')).toBe(five);
  });
});

describe('write_file', () => {
  it('creates files and missing folders', async () => {
    const ws = await makeWorkspace();
    const result = await ws.tools().execute('write_file', { file_path: 'deep/er/new.md', content: '# hi\n' });
    expect(result.ok).toBe(true);
    expect(result.message).toContain('Created deep/er/new.md (1 line)');
    expect(await ws.text('deep/er/new.md')).toBe('# hi\n');
  });

  it('overwrites only a file read in full, keeping its line endings', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'old\r\nfile\r\n' });
    const tools = ws.tools();
    expect(await tools.execute('write_file', { file_path: 'a.txt', content: 'x' })).toMatchObject({
      ok: false,
      code: 'NOT_READ',
    });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('write_file', { file_path: 'a.txt', content: 'new\nfile\n' });
    expect(result.ok).toBe(true);
    expect(await ws.text('a.txt')).toBe('new\r\nfile\r\n');
  });

  it('treats identical content as a no-op without asking', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'same\n' });
    let asked = 0;
    const tools = ws.tools({
      approve: () => {
        asked++;
        return 'once';
      },
    });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('write_file', { file_path: 'a.txt', content: 'same\n' });
    expect(result.ok).toBe(true);
    expect(result.message).toContain('No change');
    expect(asked).toBe(0);
  });
});

describe('undo_edit', () => {
  it('walks back through changes, and deletes a file editgate created', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'v1\n' });
    const tools = ws.tools();
    await readAll(tools, 'a.txt');
    await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'v1', new_string: 'v2' });
    await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'v2', new_string: 'v3' });
    expect((await tools.execute('undo_edit', { file_path: 'a.txt' })).ok).toBe(true);
    expect(await ws.text('a.txt')).toBe('v2\n');
    const second = await tools.execute('undo_edit', { file_path: 'a.txt' });
    expect(second.message).toContain('Undid');
    expect(await ws.text('a.txt')).toBe('v1\n');
    expect(await tools.execute('undo_edit', { file_path: 'a.txt' })).toMatchObject({
      ok: false,
      code: 'NOTHING_TO_UNDO',
    });

    await tools.execute('write_file', { file_path: 'b.txt', content: 'new\n' });
    const undone = await tools.execute('undo_edit', { file_path: 'b.txt' });
    expect(undone.ok).toBe(true);
    await expect(ws.text('b.txt')).rejects.toThrow();
  });

  it('refuses when the file changed after editgate wrote it', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'v1\n' });
    const tools = ws.tools();
    await readAll(tools, 'a.txt');
    await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'v1', new_string: 'v2' });
    await ws.put('a.txt', 'someone else\n');
    expect(await tools.execute('undo_edit', { file_path: 'a.txt' })).toMatchObject({
      ok: false,
      code: 'STALE',
    });
    expect(await ws.text('a.txt')).toBe('someone else\n');
  });
});

describe('long lines', () => {
  it('caps a line in read_file, counts it as read, and echoes only a bounded excerpt after an edit', async () => {
    const long = `const data = "${'x'.repeat(300_000)}";`;
    const ws = await makeWorkspace({ 'bundle.js': `${long}\nexport default data;\n` });
    const tools = ws.tools();
    const read = await tools.execute('read_file', { file_path: 'bundle.js' });
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.message.length).toBeLessThan(3000);
    expect(read.message).toMatch(/line cut: \d+ more characters not shown; it counts as read/);
    expect(read.details).toMatchObject({ complete: true });
    const edit = await tools.execute('edit_file', {
      file_path: 'bundle.js',
      old_string: 'const data = "xxx',
      new_string: 'const data = "yyy',
    });
    expect(edit.ok).toBe(true);
    if (!edit.ok) return;
    expect(edit.message.length).toBeLessThan(5000);
    expect(String(edit.details.unifiedDiff).length).toBeLessThan(10_000);
    expect((await ws.text('bundle.js')).startsWith('const data = "yyyxxx')).toBe(true);
  });
});
