// The apply_patch tool: a patch in Codex's *** Begin Patch form, on real files, as one change set.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffLines } from '../../src/core/diff.js';
import { makeWorkspace, scriptedApprover } from './workspace-fixture.js';

const patch = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');

describe('apply_patch', () => {
  it('updates, adds and deletes three files with one approval', async () => {
    const ws = await makeWorkspace({
      'src/app.py': 'def run():\n    a = 1\n    b = 2\n    return a + b\n',
      'old.txt': 'bye\n',
    });
    const { approver, asked } = scriptedApprover('once');
    const tools = ws.tools({ approve: approver });
    const result = await tools.execute('apply_patch', {
      patch: patch(
        '*** Update File: src/app.py',
        '@@ def run():',
        '     a = 1',
        '-    b = 2',
        '+    b = 3',
        '     return a + b',
        '*** Add File: docs/notes.md',
        '+# Notes',
        '+written by a patch',
        '*** Delete File: old.txt',
      ),
    });
    expect(result.ok, result.message).toBe(true);
    expect(result.message).toContain('Changed 3 files as one change');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.files?.map((file) => [file.path, file.kind])).toEqual([
      ['src/app.py', 'modify'],
      ['docs/notes.md', 'create'],
      ['old.txt', 'delete'],
    ]);
    expect(await ws.text('src/app.py')).toBe('def run():\n    a = 1\n    b = 3\n    return a + b\n');
    expect(await ws.text('docs/notes.md')).toBe('# Notes\nwritten by a patch\n');
    await expect(ws.text('old.txt')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('moves a file with its changes, and honours *** End of File', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\ntwo\nend\n', 'b.txt': 'x\nend\nend\n' });
    const tools = ws.tools();
    const result = await tools.execute('apply_patch', {
      patch: patch(
        '*** Update File: a.txt',
        '*** Move to: moved/a.txt',
        ' one',
        '-two',
        '+TWO',
        '*** Update File: b.txt',
        ' end',
        '-end',
        '+last',
        '*** End of File',
      ),
    });
    expect(result.ok, result.message).toBe(true);
    expect(await ws.text('moved/a.txt')).toBe('one\nTWO\nend\n');
    await expect(ws.text('a.txt')).rejects.toMatchObject({ code: 'ENOENT' });
    // "end" occurs twice; the end-of-file marker picks the last.
    expect(await ws.text('b.txt')).toBe('x\nend\nlast\n');
  });

  it('refuses an add of an existing file, a delete or update of a missing one, with nothing written', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const tools = ws.tools();
    const update = ['*** Update File: a.txt', '-a', '+A'];
    const exists = await tools.execute('apply_patch', {
      patch: patch(...update, '*** Add File: b.txt', '+b'),
    });
    expect(exists).toMatchObject({ ok: false, code: 'FILE_EXISTS' });
    expect(exists.message).toContain('*** Update File: b.txt');
    const gone = await tools.execute('apply_patch', { patch: patch(...update, '*** Delete File: c.txt') });
    expect(gone).toMatchObject({ ok: false, code: 'FILE_NOT_FOUND' });
    const missing = await tools.execute('apply_patch', {
      patch: patch(...update, '*** Update File: c.txt', '-c', '+C'),
    });
    expect(missing).toMatchObject({ ok: false, code: 'FILE_NOT_FOUND' });
    expect(missing.message).toContain('*** Add File: c.txt');
    expect([await ws.text('a.txt'), await ws.text('b.txt')]).toEqual(['a\n', 'b\n']);
  });

  it('refuses a patch that does not parse, naming the line and what was expected', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'a\n' });
    const result = await ws.tools().execute('apply_patch', {
      patch: patch('*** Update File: a.txt', '-a', 'oops', '+A'),
    });
    expect(result).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(result.message).toMatch(/line 4: expected a hunk line.*found "oops"/);
    expect(await ws.text('a.txt')).toBe('a\n');
  });

  it('refuses a hunk whose context matches more than one place, with the count, nothing written', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'x\ny\nx\ny\n', 'b.txt': 'b\n' });
    const result = await ws.tools().execute('apply_patch', {
      patch: patch('*** Update File: b.txt', '-b', '+B', '*** Update File: a.txt', ' x', '-y', '+Y'),
    });
    expect(result).toMatchObject({ ok: false, code: 'AMBIGUOUS' });
    expect(result.message).toMatch(/a\.txt/);
    expect(result.message).toMatch(/2/);
    expect([await ws.text('a.txt'), await ws.text('b.txt')]).toEqual(['x\ny\nx\ny\n', 'b\n']);
  });

  it('the patch made from a to b applies to a file holding a and leaves b, CRLF and BOM kept', async () => {
    const ws = await makeWorkspace();
    const tools = ws.tools();
    const unique = fc
      .uniqueArray(fc.string({ unit: fc.constantFrom('a', 'b', ' ', '(', 'x'), maxLength: 5 }), {
        minLength: 1,
        maxLength: 25,
      })
      .map((lines) => lines.map((line, i) => `${i}:${line}`));
    const edited = unique.chain((lines) =>
      fc
        .array(fc.tuple(fc.nat(), fc.constantFrom('drop', 'change', 'add')), { minLength: 1, maxLength: 5 })
        .map((edits) => {
          const after = [...lines];
          for (const [at, what] of edits) {
            const i = after.length === 0 ? 0 : at % after.length;
            if (what === 'add' || after.length === 0) after.splice(i, 0, `new ${at}`);
            else if (what === 'drop') after.splice(i, 1);
            else after[i] = `${after[i]} changed`;
          }
          return [lines, after] as const;
        }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(edited, fc.boolean(), fc.boolean(), async ([before, after], crlf, bom) => {
        const a = before.map((line) => `${line}\n`).join('');
        const b = after.map((line) => `${line}\n`).join('');
        fc.pre(a !== b);
        const name = `f${run++}.txt`;
        const encode = (text: string) =>
          Buffer.concat([
            Buffer.from(bom ? [0xef, 0xbb, 0xbf] : []),
            Buffer.from(crlf ? text.replace(/\n/g, '\r\n') : text),
          ]);
        await ws.put(name, encode(a));
        const lines = ['*** Begin Patch', `*** Update File: ${name}`];
        for (const hunk of diffLines(a, b).hunks) {
          lines.push('@@');
          for (const line of hunk.lines)
            lines.push(`${{ context: ' ', add: '+', remove: '-' }[line.kind]}${line.text}`);
        }
        lines.push('*** End Patch');
        const result = await tools.execute('apply_patch', { patch: lines.join('\n') });
        expect(result.ok, result.message).toBe(true);
        expect((await ws.bytes(name)).equals(encode(b))).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});
