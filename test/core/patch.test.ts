import { describe, expect, it } from 'vitest';
import { EditgateError } from '../../src/core/errors.js';
import { parseCreateDiff, parsePatch, parseUpdateDiff } from '../../src/core/patch.js';
import { applyHunks } from '../../src/core/patch-apply.js';

const target = { path: 'src/app.py', matching: 'tolerant' as const };

function refusal(run: () => unknown): EditgateError {
  try {
    run();
  } catch (error) {
    if (error instanceof EditgateError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

function updateOf(patch: string) {
  const [operation] = parsePatch(patch);
  if (operation?.type !== 'update') throw new Error('not an update');
  return operation;
}

describe('parsePatch: the format as Codex documents it', () => {
  it('reads the example that combines every operation', () => {
    const operations = parsePatch(
      [
        '*** Begin Patch',
        '*** Add File: hello.txt',
        '+Hello world',
        '*** Update File: src/app.py',
        '*** Move to: src/main.py',
        '@@ def greet():',
        '-print("Hi")',
        '+print("Hello, world!")',
        '*** Delete File: obsolete.txt',
        '*** End Patch',
      ].join('\n'),
    );
    expect(operations).toEqual([
      { type: 'add', path: 'hello.txt', content: 'Hello world\n', line: 2 },
      {
        type: 'update',
        path: 'src/app.py',
        moveTo: 'src/main.py',
        line: 4,
        hunks: [
          {
            anchors: ['def greet():'],
            lines: [
              { kind: '-', text: 'print("Hi")' },
              { kind: '+', text: 'print("Hello, world!")' },
            ],
            endOfFile: false,
            line: 6,
          },
        ],
      },
      { type: 'delete', path: 'obsolete.txt', line: 9 },
    ]);
  });

  it('takes nested @@ lines, a first hunk without @@, empty context lines, End of File and CRLF', () => {
    const patch = [
      '*** Begin Patch',
      '*** Update File: a.py',
      ' import os',
      '-import sys',
      '',
      '@@ class BaseClass',
      '@@     def method():',
      '-        return 1',
      '+        return 2',
      '@@',
      ' last',
      '+after last',
      '*** End of File',
      '*** End Patch',
      '',
    ].join('\r\n');
    const update = updateOf(patch);
    expect(update.hunks.map((hunk) => [hunk.anchors, hunk.lines.length, hunk.endOfFile, hunk.line])).toEqual([
      [[], 3, false, 3],
      [['class BaseClass', 'def method():'], 2, false, 6],
      [[], 2, true, 10],
    ]);
    expect(update.hunks[0]!.lines[2]).toEqual({ kind: ' ', text: '' });
  });

  it('reads a unified diff header for its text only, never its line numbers', () => {
    const update = updateOf(
      '*** Begin Patch\n*** Update File: a\n@@ -10,3 +10,3 @@ def f():\n-a\n+b\n*** End Patch',
    );
    expect(update.hunks[0]!.anchors).toEqual(['def f():']);
  });

  it.each([
    ['no envelope', 'hello', /line 1: expected "\*\*\* Begin Patch" as the first line; found "hello"/],
    ['no end', '*** Begin Patch\n*** Delete File: a', /line 2: expected "\*\*\* End Patch" as the last line/],
    [
      'a stray line',
      '*** Begin Patch\nfoo\n*** End Patch',
      /line 2: expected a file operation \("\*\*\* Add File: PATH".*found "foo"/,
    ],
    [
      'an added file line without +',
      '*** Begin Patch\n*** Add File: a\n+x\ny\n*** End Patch',
      /line 4: expected a line of the new file, starting with "\+"; found "y"/,
    ],
    [
      'a hunk line with no marker',
      '*** Begin Patch\n*** Update File: a\n@@\n x\n!y\n*** End Patch',
      /line 5: expected a hunk line/,
    ],
    [
      'an update without hunks',
      '*** Begin Patch\n*** Update File: a\n*** End Patch',
      /line 3: expected a hunk/,
    ],
    ['no path', '*** Begin Patch\n*** Delete File: \n*** End Patch', /line 2: expected a path after/],
    ['nothing in it', '*** Begin Patch\n*** End Patch', /line 2: expected a file operation/],
    [
      'a hunk that changes nothing',
      '*** Begin Patch\n*** Update File: a\n@@\n x\n*** End Patch',
      /hunk at line 3 has no "-" or "\+" line/,
    ],
    [
      'a file named twice',
      '*** Begin Patch\n*** Delete File: a\n*** Add File: a\n+x\n*** End Patch',
      /names a twice \(lines 2 and 3\)/,
    ],
    [
      'lines after the end',
      '*** Begin Patch\n*** Delete File: a\n*** End Patch\nmore',
      /line 4: expected nothing after/,
    ],
  ])('refuses %s with the line and what was expected', (_name, patch, message) => {
    const error = refusal(() => parsePatch(patch));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toMatch(message);
    expect(error.message).toContain('Nothing was changed');
  });
});

describe("OpenAI's operation diffs", () => {
  it('reads a create_file diff and an update_file diff', () => {
    expect(parseCreateDiff('+line one\n+line two\n')).toBe('line one\nline two\n');
    expect(parseCreateDiff('')).toBe('');
    const hunks = parseUpdateDiff('@@ function main() {\n+  console.log("hi");\n }');
    expect(hunks).toEqual([
      {
        anchors: ['function main() {'],
        lines: [
          { kind: '+', text: '  console.log("hi");' },
          { kind: ' ', text: '}' },
        ],
        endOfFile: false,
        line: 1,
      },
    ]);
    expect(refusal(() => parseCreateDiff('+a\nb')).message).toMatch(
      /line 2: expected a line of the new file/,
    );
    expect(refusal(() => parseUpdateDiff('')).message).toMatch(/expected at least one hunk/);
  });
});

describe('applyHunks: exactly one place per hunk', () => {
  const file = [
    'class A:',
    '    def run(self):',
    '        return 1',
    '',
    'class B:',
    '    def run(self):',
    '        return 1',
    '',
  ].join('\n');

  it('refuses context that matches two places, with the count and lines', () => {
    const { hunks } = updateOf(
      '*** Begin Patch\n*** Update File: a\n@@\n     def run(self):\n-        return 1\n+        return 2\n*** End Patch',
    );
    const error = refusal(() => applyHunks(file, hunks, target));
    expect(error.code).toBe('AMBIGUOUS');
    expect(error.message).toMatch(
      /^src\/app\.py, its hunk \(patch line 3\): its context and removed lines match 2 places, at lines 2 and 6/,
    );
    expect(error.details).toMatchObject({ count: 2, lines: [2, 6], hunk: 1, path: 'src/app.py' });
  });

  it('places it below the line an @@ names, whichever comes first in the file', () => {
    const patch =
      '*** Begin Patch\n*** Update File: a\n@@ class B:\n     def run(self):\n-        return 1\n+        return 2\n*** End Patch';
    expect(applyHunks(file, updateOf(patch).hunks, target).text).toBe(
      file.replace(/return 1\n\n$/, 'return 2\n\n').replace(/(class B:[\s\S]*)return 1/, '$1return 2'),
    );
    const reversed = file.split('\n\n').reverse().join('\n\n');
    const onA =
      '*** Begin Patch\n*** Update File: a\n@@ class A:\n     def run(self):\n-        return 1\n+        return 2\n*** End Patch';
    // class A now comes second: below its line only one place is left.
    expect(applyHunks(reversed, updateOf(onA).hunks, target).text).toMatch(
      /class A:\n {4}def run\(self\):\n {8}return 2/,
    );
  });

  it('refuses an @@ line that names no line, and a missing context with the closest region', () => {
    const anchor = updateOf(
      '*** Begin Patch\n*** Update File: a\n@@ class C:\n-        return 1\n+x\n*** End Patch',
    );
    expect(refusal(() => applyHunks(file, anchor.hunks, target)).message).toMatch(
      /its @@ line "class C:" names no line of the file/,
    );
    const missing = updateOf(
      '*** Begin Patch\n*** Update File: a\n@@ class B:\n     def run(self, x):\n-        return 1\n+x\n*** End Patch',
    );
    const error = refusal(() => applyHunks(file, missing.hunks, target));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toMatch(/were not found below "class B:"/);
    expect(error.message).toMatch(/The closest text is at lines 6-7/);
  });

  it('applies hunks in file order, each after the one before', () => {
    const text = 'x = 1\ny = 2\nx = 1\n';
    const patch = '*** Begin Patch\n*** Update File: a\n@@\n y = 2\n-x = 1\n+x = 3\n*** End Patch';
    expect(applyHunks(text, updateOf(patch).hunks, target).text).toBe('x = 1\ny = 2\nx = 3\n');
    // The second hunk is looked for after the first, so its bare "x = 1" is the one on line 3.
    const two =
      '*** Begin Patch\n*** Update File: a\n@@\n-x = 1\n+x = 0\n y = 2\n@@\n-x = 1\n+x = 9\n*** End Patch';
    expect(applyHunks(text, updateOf(two).hunks, target).text).toBe('x = 0\ny = 2\nx = 9\n');
    // Without context the first hunk matches lines 1 and 3: refused, never "the first one".
    const loose = '*** Begin Patch\n*** Update File: a\n@@\n-x = 1\n+x = 0\n*** End Patch';
    expect(refusal(() => applyHunks(text, updateOf(loose).hunks, target)).details).toMatchObject({
      lines: [1, 3],
    });
  });

  it('matches whole lines only: a context line is never the tail of a longer line', () => {
    const patch = '*** Begin Patch\n*** Update File: a\n@@\n }\n-c();\n+d();\n*** End Patch';
    // "}\nc();\n" is in the text, but "}" there is the tail of the line "  }": not a match.
    const error = refusal(() => applyHunks('if (a) {\n  b();\n  }\nc();\n', updateOf(patch).hunks, target));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('it differs only in whitespace');
    // Shifted as a whole, the lines are found by the indentation tier, and the new line is shifted too.
    expect(applyHunks('  if (a) {\n    b();\n  }\n  c();\n', updateOf(patch).hunks, target)).toEqual({
      text: '  if (a) {\n    b();\n  }\n  d();\n',
      tiers: ['indentation'],
    });
  });

  it('keeps CRLF line endings and a missing final newline', () => {
    const crlf = 'one\r\ntwo\r\nthree\r\n';
    const patch = '*** Begin Patch\n*** Update File: a\n@@\n one\n-two\n+TWO\n+2\n*** End Patch';
    expect(applyHunks(crlf, updateOf(patch).hunks, target).text).toBe('one\r\nTWO\r\n2\r\nthree\r\n');
    const open = 'one\ntwo';
    const end = '*** Begin Patch\n*** Update File: a\n@@\n one\n-two\n+2\n*** End of File\n*** End Patch';
    expect(applyHunks(open, updateOf(end).hunks, target).text).toBe('one\n2');
    const remove = '*** Begin Patch\n*** Update File: a\n@@\n one\n-two\n*** End Patch';
    expect(applyHunks(open, updateOf(remove).hunks, target).text).toBe('one\n');
    const append = '*** Begin Patch\n*** Update File: a\n@@\n+three\n*** End Patch';
    expect(applyHunks(open, updateOf(append).hunks, target).text).toBe('one\ntwo\nthree');
  });

  it('holds End of File to the end, and refuses added lines an @@ line cannot place', () => {
    const text = 'a\nb\na\nb\n';
    const patch = '*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+c\n*** End of File\n*** End Patch';
    expect(applyHunks(text, updateOf(patch).hunks, target).text).toBe('a\nb\na\nc\n');
    const lost = '*** Begin Patch\n*** Update File: f\n@@ a\n+x\n*** End Patch';
    expect(refusal(() => applyHunks(text, updateOf(lost).hunks, target)).message).toMatch(/only adds lines/);
  });
});

describe("parsePatch: the framing Codex's own parser takes", () => {
  const body = ['*** Update File: notes.txt', '@@', ' alpha', '-beta', '+BETA'];
  const expected = [
    {
      type: 'update',
      path: 'notes.txt',
      hunks: [
        {
          lines: [
            { kind: ' ', text: 'alpha' },
            { kind: '-', text: 'beta' },
            { kind: '+', text: 'BETA' },
          ],
        },
      ],
    },
  ];

  it('takes spaces around the markers and the file headers', () => {
    const patch = ['  *** Begin Patch  ', `  ${body[0]}  `, ...body.slice(1), ' *** End Patch '].join('\n');
    expect(parsePatch(patch)).toMatchObject(expected);
  });

  it("takes the patch inside a heredoc's markers, quoted or not", () => {
    for (const start of ['<<EOF', "<<'EOF'", '<<"EOF"']) {
      const patch = [start, '*** Begin Patch', ...body, '*** End Patch', 'EOF', ''].join('\n');
      expect(parsePatch(patch), start).toMatchObject(expected);
    }
  });

  it('skips blank lines between a file header and its first hunk, as Codex does', () => {
    const patch = ['*** Begin Patch', body[0]!, '', '   ', ...body.slice(1), '*** End Patch'].join('\n');
    expect(parsePatch(patch)).toMatchObject(expected);
  });

  it('reads a last line " *** End Patch" as the end, not as a context line', () => {
    const patch = ['*** Begin Patch', ...body, ' *** End Patch'].join('\n');
    expect(updateOf(patch).hunks[0]!.lines).toHaveLength(3);
  });

  it('still refuses what is not a patch: a heredoc without the patch, an unclosed heredoc, a bad header', () => {
    expect(refusal(() => parsePatch(['<<EOF', 'hello', 'EOF'].join('\n'))).message).toMatch(/Begin Patch/);
    expect(
      refusal(() => parsePatch(['<<EOF', '*** Begin Patch', ...body, '*** End Patch'].join('\n'))).message,
    ).toMatch(/Begin Patch/);
    expect(
      refusal(() => parsePatch(['*** Begin Patch', '*** Change File: a', '*** End Patch'].join('\n')))
        .message,
    ).toMatch(/file operation/);
  });

  it('still refuses context that matches two places when the patch is applied', () => {
    const [operation] = parsePatch(
      ['<<EOF', '*** Begin Patch', '*** Update File: a', '@@', '-x', '+y', '*** End Patch', 'EOF'].join('\n'),
    );
    if (operation?.type !== 'update') throw new Error('not an update');
    expect(refusal(() => applyHunks('x\nx\n', operation.hunks, target)).code).toBe('AMBIGUOUS');
  });
});
