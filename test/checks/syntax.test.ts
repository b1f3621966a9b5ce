/**
 * The syntax errors a change adds (src/checks/syntax.ts), read with the real tree-sitter grammars: one
 * breaking change per language is flagged with the line to look at, a change that keeps a file readable is
 * not, and errors already in a file are not the change's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { syntaxFindings } from '../../src/checks/syntax.js';

/** Per language: a file, the same file changed and still fine, and changed and broken (with its line). */
const CASES: [path: string, before: string, fine: string, broken: string, line: number][] = [
  [
    'a.ts',
    'const a: number = 1;\nexport function f(): number {\n  return a;\n}\n',
    'const a: number = 2;\nexport function f(): number {\n  return a satisfies number;\n}\n',
    'const a: number = 1;\nexport function f(): number {\n  return (a;\n}\n',
    3,
  ],
  [
    'a.tsx',
    'export const A = () => <div>{1}</div>;\n',
    'export const A = () => <div className="x">{2}</div>;\n',
    'export const A = () => <div>{1</div>;\n',
    1,
  ],
  [
    'a.js',
    'function f(x) {\n  return x + 1;\n}\n',
    'function f(x) {\n  return x + 2;\n}\n',
    'function f(x) {\n  return x + 1;\n\n',
    3,
  ],
  [
    'a.py',
    'def f(x):\n    y = x\n    return y\n',
    'def f(x):\n    y = x * 2\n    return y\n',
    'def f(x):\n    y = x\n     return y\n',
    3,
  ],
  [
    'a.go',
    'package a\n\nfunc F() int {\n\treturn 1\n}\n',
    'package a\n\nfunc F() int {\n\treturn 2\n}\n',
    'package a\n\nfunc F() int {\n\treturn (1\n}\n',
    4,
  ],
  [
    'a.rs',
    'fn f() -> i32 {\n    1\n}\n',
    'fn f() -> i32 {\n    2\n}\n',
    'fn f() -> i32 {\n    let x = [1, 2;\n}\n',
    2,
  ],
  [
    'A.java',
    'class A {\n  int f() { return 1; }\n}\n',
    'class A {\n  int f() { return 2; }\n}\n',
    'class A {\n  int f() { return 1 }\n}\n',
    2,
  ],
  [
    'a.c',
    'int f(void) {\n  return 1;\n}\n',
    'int f(void) {\n  return 2;\n}\n',
    'int f(void) {\n  return (1;\n}\n',
    2,
  ],
  ['a.cpp', 'int f() {\n  return 1;\n}\n', 'int f() {\n  return 2;\n}\n', 'int f() {\n  return (1;\n}\n', 2],
  [
    'A.cs',
    'class A {\n  int F() { return 1; }\n}\n',
    'class A {\n  int F() { return 2; }\n}\n',
    'class A {\n  int F() { return (1; }\n}\n',
    2,
  ],
  ['a.rb', 'def f\n  1\nend\n', 'def f\n  2\nend\n', 'def f\n  (1\nend\n', 2],
  [
    'a.php',
    '<?php\nfunction f() {\n  return 1;\n}\n',
    '<?php\nfunction f() {\n  return 2;\n}\n',
    '<?php\nfunction f() {\n  return (1;\n}\n',
    3,
  ],
  ['a.json', '{\n  "a": 1\n}\n', '{\n  "a": 2\n}\n', '{\n  "a": 1,\n}\n', 2],
  ['a.yaml', 'a: 1\nb: [1, 2]\n', 'a: 1\nb: [1, 3]\n', 'a: 1\nb: [1, 2\n', 2],
  ['a.toml', '[a]\nb = "c"\n', '[a]\nb = "d"\n', '[a]\nb = "c\n', 2],
  ['a.css', 'a {\n  color: red;\n}\n', 'a {\n  color: blue;\n}\n', 'a {\n  color: red;\n\n', 3],
  ['a.html', '<p>\n  <b>x</b>\n</p>\n', '<p>\n  <b>y</b>\n</p>\n', '<p>\n  <b>x</b\n</p>\n', 2],
  [
    'a.sh',
    'if true; then\n  echo 1\nfi\n',
    'if true; then\n  echo 2\nfi\n',
    'if true; then\n  echo "1\nfi\n',
    2,
  ],
];

describe('syntaxFindings', () => {
  for (const [path, before, fine, broken, line] of CASES) {
    it(`${path}: flags the change that breaks it, at line ${line}, and not the one that keeps it readable`, async () => {
      expect(await syntaxFindings(path, before, fine)).toEqual([]);
      const found = await syntaxFindings(path, before, broken);
      expect(found.length).toBeGreaterThan(0);
      expect(found[0]).toMatchObject({ kind: 'syntax', path, severity: 'info' });
      expect(found[0]!.source).toMatch(/^syntax:/);
      expect(found.map((f) => f.line)).toContain(line);
      expect(found[0]!.message).toMatch(/a syntax error this change adds/);
    });
  }

  it('a new file is a change from nothing: its errors are all the change’s', async () => {
    expect(await syntaxFindings('new.py', '', 'def f(:\n    pass\n')).toHaveLength(1);
    expect(await syntaxFindings('new.py', '', 'def f():\n    pass\n')).toEqual([]);
  });

  it('errors already in the file are not the change’s', async () => {
    const before = 'function f() {\n  return (1;\n}\n\nfunction g() {\n  return 1;\n}\n';
    const after = 'function f() {\n  return (1;\n}\n\nfunction g() {\n  return 2;\n}\n';
    expect(await syntaxFindings('a.js', before, after)).toEqual([]);
  });

  it('Python: an unexpected indent, a dedent to no block, and a block with no body are errors Python refuses', async () => {
    const before = 'def f(x):\n    if x:\n        a = 1\n    b = 2\n    return b\n';
    expect(await syntaxFindings('a.py', before, before.replace('    b = 2', '      b = 2'))).toHaveLength(1);
    expect(await syntaxFindings('a.py', before, before.replace('    return b', '  return b'))).toHaveLength(
      1,
    );
    expect(
      await syntaxFindings('a.py', before, 'def f(x):\n    if x:\n    b = 2\n    return b\n'),
    ).toHaveLength(1);
    // One line with two statements, and comments at any column, are fine.
    expect(
      await syntaxFindings('a.py', before, before.replace('    b = 2', '    b = 2; c = 3\n  # note')),
    ).toEqual([]);
  });

  it('Python: a docstring’s line indented anew is text, not an indentation error (requests utils.py)', async () => {
    const before =
      'def get_unicode_from_response(r):\n    """Returns the requested content back in unicode.\n\n    1. charset from content-type\n    2. fall back and replace all unicode characters\n    """\n    return r\n';
    const after = before.replace('    2. fall back', '   2. fall back');
    expect(await syntaxFindings('src/requests/utils.py', before, after)).toEqual([]);
    // The same column change on a statement line is Python's IndentationError.
    expect(await syntaxFindings('a.py', before, before.replace('    return r', '   return r'))).toHaveLength(
      1,
    );
  });

  it('Rust: a lifetime without its quote is a type parameter, a name error for rustc, not a syntax error (ripgrep)', async () => {
    const before = "impl<'a> Iterator for Parents<'a> {\n    type Item = IgnoreRef<'a>;\n}\n";
    const after = before.replace("IgnoreRef<'a>", 'IgnoreRef<a>');
    expect(await syntaxFindings('crates/ignore/src/dir.rs', before, after)).toEqual([]);
    // A string's quote dropped is a syntax error.
    const strings = 'fn f() -> &\'static str {\n    "ignore"\n}\n';
    expect(await syntaxFindings('a.rs', strings, strings.replace('"ignore', 'ignore'))).not.toEqual([]);
  });

  it('C and C++: a macro the grammar cannot expand is not the change’s error', async () => {
    const before = 'int main(void)\n{\n  return 0;\n}\n';
    expect(await syntaxFindings('a.c', before, before.replace('int main', 'int CJSON_CDECL main'))).toEqual(
      [],
    );
  });

  it('shows the file’s text quoted, with control and direction characters replaced', async () => {
    const found = await syntaxFindings('a.js', 'let a = 1;\n', 'let a = 1;\nlet = \u202e\u0007 @@;\n');
    expect(found.length).toBeGreaterThan(0);
    for (const finding of found) expect(finding.message).not.toMatch(/[\u202e\u0007]/);
  });

  it('names no grammar for a file it cannot read, and finds nothing there', async () => {
    expect(await syntaxFindings('notes.txt', 'a', 'b (')).toEqual([]);
    expect(await syntaxFindings('Makefile', 'a', 'b (')).toEqual([]);
  });

  it('takes the severity policy gives it', async () => {
    const [finding] = await syntaxFindings('a.json', '{}', '{', { severity: 'deny' });
    expect(finding?.severity).toBe('deny');
  });

  it('at most five findings per file, the last saying how many more', async () => {
    const before = Array.from({ length: 20 }, (_, i) => `let v${i} = ${i};`).join('\n');
    const after = Array.from({ length: 20 }, (_, i) => `let v${i} = (${i};`).join('\n');
    const found = await syntaxFindings('a.js', before, after);
    expect(found).toHaveLength(5);
    expect(found[4]!.message).toMatch(/and \d+ more/);
  });

  const statementArb = fc.constantFrom(
    'let a = 1;',
    'f(x);',
    'if (x) { y(); }',
    'const s = "t";',
    '// note',
    '',
  );
  it('property: identical texts give nothing; a change of whole statements away from a broken line adds nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(statementArb, { minLength: 10, maxLength: 40 }),
        fc.nat(),
        fc.nat(),
        statementArb,
        async (lines, brokenAt, changeAt, replacement) => {
          const broken = brokenAt % lines.length;
          const withError = lines.map((line, i) => (i === broken ? 'let = (;' : line));
          const before = withError.join('\n');
          expect(await syntaxFindings('a.js', before, before)).toEqual([]);
          const at = changeAt % lines.length;
          if (Math.abs(at - broken) < 2) return;
          const after = withError.map((line, i) => (i === at ? replacement : line)).join('\n');
          expect(await syntaxFindings('a.js', before, after)).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
