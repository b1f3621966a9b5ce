/**
 * Issue #27, item 5: every tool describes its own calls (a title and every path the call reads or changes),
 * from the input as a model sent it, so no front end guesses which argument holds a path. A describe never
 * throws, whatever the input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeCall, TOOL_NAMES } from '../../src/tools/index.js';

const ALL_TOOLS = [...TOOL_NAMES, 'apply_change'];

function patch(...lines: string[]): { patch: string } {
  return { patch: ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n') };
}

describe('each tool describes its calls', () => {
  it.each([
    ['read_file', { file_path: 'src/a.ts' }, 'Read src/a.ts'],
    ['read_file', { file_path: 'src/a.ts', offset: 10, limit: 20 }, 'Read src/a.ts (lines 10-29)'],
    ['read_file', { file_path: 'src/a.ts', offset: 10 }, 'Read src/a.ts (from line 10)'],
    ['read_file', { file_path: 'src/a.ts', limit: 5 }, 'Read src/a.ts (lines 1-5)'],
    ['write_file', { file_path: 'new.txt', content: 'x' }, 'Write new.txt'],
    ['edit_file', { file_path: 'a.ts', old_string: 'a', new_string: 'b' }, 'Edit a.ts'],
    ['multi_edit', { file_path: 'a.ts', edits: [{}, {}] }, 'Edit a.ts (2 edits)'],
    [
      'edit_lines',
      { file_path: 'a.ts', edits: [{ range: [1, 2], replacement: '' }] },
      'Edit lines of a.ts (1 range)',
    ],
    ['undo_edit', { file_path: 'a.ts' }, 'Undo the last change to a.ts'],
    [
      'apply_change',
      { change_id: 'c1', file_path: 'a.ts', change_hash: 'abc' },
      'Apply the proposed change to a.ts (change c1)',
    ],
  ])('%s %j: "%s"', (tool, input, title) => {
    expect(describeCall(tool, input)).toEqual({ title, paths: [input.file_path] });
  });

  it('takes the aliases execute takes, and a JSON string of the input', () => {
    expect(describeCall('edit_file', { path: 'a.ts' }).paths).toEqual(['a.ts']);
    expect(describeCall('write_file', { filePath: 'b.ts', text: 'x' }).paths).toEqual(['b.ts']);
    expect(describeCall('read_file', '{"file_path":"c.ts"}')).toEqual({
      title: 'Read c.ts',
      paths: ['c.ts'],
    });
  });

  it('apply_patch: every file, in the patch order; a move gives its old path, then its new one', () => {
    const call = describeCall(
      'apply_patch',
      patch(
        '*** Add File: docs/new.md',
        '+hello',
        '*** Delete File: old.txt',
        '*** Update File: src/a.ts',
        '@@',
        '-x',
        '+y',
        '*** Update File: src/b.ts',
        '*** Move to: lib/b.ts',
        '*** Update File: src/c.ts',
        '*** Move to: lib/c.ts',
        '@@',
        '-p',
        '+q',
      ),
    );
    expect(call.paths).toEqual([
      'docs/new.md',
      'old.txt',
      'src/a.ts',
      'src/b.ts',
      'lib/b.ts',
      'src/c.ts',
      'lib/c.ts',
    ]);
    expect(call.title).toBe(
      'Patch 7 files: add docs/new.md, delete old.txt, update src/a.ts, move src/b.ts → lib/b.ts, move src/c.ts → lib/c.ts',
    );
  });

  it('apply_patch of one file says what it does to it', () => {
    expect(describeCall('apply_patch', patch('*** Delete File: gone.txt'))).toEqual({
      title: 'Delete gone.txt',
      paths: ['gone.txt'],
    });
    expect(describeCall('apply_patch', patch('*** Update File: a.ts', '*** Move to: b.ts'))).toEqual({
      title: 'Move a.ts → b.ts',
      paths: ['a.ts', 'b.ts'],
    });
  });

  it('a long path is cut in the title, whole in paths', () => {
    const long = `${'d/'.repeat(200)}file.ts`;
    const call = describeCall('edit_file', { file_path: long });
    expect(call.paths).toEqual([long]);
    expect(call.title.length).toBeLessThan(220);
    expect(call.title.endsWith('…')).toBe(true);
  });
});

describe('bad input: described, never thrown', () => {
  it.each([
    ['no input', undefined],
    ['null', null],
    ['a number', 42],
    ['an array', ['a.ts']],
    ['a string that is not JSON', 'file_path=a.ts'],
    ['a path that is not a string', { file_path: 7 }],
    ['an empty path', { file_path: '' }],
    ['a path inherited, not its own', Object.create({ file_path: 'a.ts' })],
  ])('%s: the tool title and no path', (_name, input) => {
    for (const tool of ALL_TOOLS) {
      const call = describeCall(tool, input);
      expect(call.paths, tool).toEqual([]);
      expect(call.title, tool).not.toBe('');
    }
  });

  it('an alias given beside its canonical name (execute refuses it): the canonical one', () => {
    expect(describeCall('edit_file', { path: 'x.ts', file_path: 'a.ts' }).paths).toEqual(['a.ts']);
  });

  it('a patch that does not parse, or is not a string, names no path', () => {
    expect(describeCall('apply_patch', { patch: '*** Delete File: a.ts' })).toEqual({
      title: 'Apply patch',
      paths: [],
    });
    expect(describeCall('apply_patch', { patch: 3 })).toEqual({ title: 'Apply patch', paths: [] });
    expect(describeCall('apply_patch', patch('*** Update File: a.ts'))).toEqual({
      title: 'Apply patch',
      paths: [],
    });
  });

  it('odd counts and numbers are left out, not shown wrong', () => {
    expect(describeCall('read_file', { file_path: 'a', offset: -3, limit: 1.5 }).title).toBe('Read a');
    expect(describeCall('multi_edit', { file_path: 'a', edits: 'many' }).title).toBe('Edit a');
    expect(describeCall('multi_edit', { file_path: 'a', edits: [{}] }).title).toBe('Edit a (1 edit)');
  });

  it('an unknown tool gives its name', () => {
    expect(describeCall('rm_rf', { file_path: 'a' })).toEqual({ title: 'rm_rf', paths: [] });
    expect(describeCall('__proto__', {})).toEqual({ title: '__proto__', paths: [] });
  });

  it('never throws, and every path it gives is a string the input holds (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ALL_TOOLS), fc.anything(), (tool, input) => {
        const call = describeCall(tool, input);
        expect(typeof call.title).toBe('string');
        for (const path of call.paths)
          expect(JSON.stringify(input)).toContain(JSON.stringify(path).slice(1, -1));
      }),
      { numRuns: 500 },
    );
  });
});
