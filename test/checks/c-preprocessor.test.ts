/**
 * C and C++'s errors before the preprocessor (src/checks/c-preprocessor.ts), with the real grammars and
 * snippets from the corpus's real edits (cJSON, fmt): a macro tree-sitter cannot read is not the change's
 * error, unless the change also broke the pairing of brackets and quotes the preprocessor reads; a broken
 * pairing is the change's error even when tree-sitter's recovery hid it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cErrorsAdded, pairingBroken, pairingOf } from '../../src/checks/c-preprocessor.js';
import { syntaxFindings } from '../../src/checks/syntax.js';
import { changedLines } from '../../src/checks/syntax-delta.js';

const broken = (before: string, after: string) => pairingBroken(before, after, changedLines(before, after));

describe('C and C++ real edits around macros: no finding', () => {
  it('a calling-convention macro the old text already used (cJSON tests/cjson_add.c)', async () => {
    const before =
      '#include "common.h"\n\nstatic void CJSON_CDECL normal_free(void *pointer)\n{\n    free(pointer);\n}\n';
    const after =
      '#include "common.h"\n\nstatic void * CJSON_CDECL failing_malloc(size_t size)\n{\n    (void)size;\n    return NULL;\n}\n\nstatic void CJSON_CDECL normal_free(void *pointer)\n{\n    free(pointer);\n}\n';
    expect(await syntaxFindings('tests/cjson_add.c', before, after)).toEqual([]);
  });

  it('a declaration whose type is a function-like macro (cJSON_Utils.h)', async () => {
    const before =
      '#include "cJSON.h"\n\nCJSON_PUBLIC(cJSON *) cJSONUtils_GetPointer(cJSON * const object);\n';
    const after = `${before}CJSON_PUBLIC(cJSON *) cJSONUtils_GetPointerCaseSensitive(cJSON * const object, const char *pointer);\n`;
    expect(await syntaxFindings('cJSON_Utils.h', before, after)).toEqual([]);
  });

  it('statement macros with no `;` (cJSON tests/compare_tests.c, fmt base.h)', async () => {
    const before =
      'static void f(void)\n{\n    TEST_ASSERT_TRUE(compare_from_string("{}", "{}", true));\n}\n';
    const after =
      'static void f(void)\n{\n    TEST_ASSERT_TRUE(compare_from_string("{}", "{}", true));\n    TEST_ASSERT_FALSE(compare_from_string(\n                "{\\"one\\": 1}",\n                "{\\"one\\": 2}",\n                true))\n}\n';
    expect(await syntaxFindings('tests/compare_tests.c', before, after)).toEqual([]);
    const header = '#define FMT_VERSION 120000\n\nint f();\n';
    const pragmas = header.replace(
      'int f();',
      'FMT_PRAGMA_GCC(push_options)\nFMT_PRAGMA_MSVC(warning(disable : 4702))\n\nint f();',
    );
    expect(await syntaxFindings('include/fmt/base.h', header, pragmas)).toEqual([]);
  });

  it('a macro read as a second statement: `f() FMT_NOEXCEPT {` and `FMT_TRY {` (fmt src/posix.cc)', async () => {
    const before = '#include "fmt/os.h"\n\nFMT_BEGIN_NAMESPACE\nint g() { return 1; }\nFMT_END_NAMESPACE\n';
    const after = before.replace(
      'int g() { return 1; }',
      'int g() { return 1; }\n\nvoid format_windows_error(buffer<char>& out, int error_code,\n                          string_view message) FMT_NOEXCEPT {\n  FMT_TRY {\n    wmemory_buffer buf;\n    buf.resize(inline_buffer_size);\n  }\n  FMT_CATCH(...) {}\n  format_error_code(out, error_code, message);\n}',
    );
    expect(await syntaxFindings('src/posix.cc', before, after)).toEqual([]);
  });

  it('a brace opened in one `#ifdef` and closed in another (cJSON fuzzing/cjson_read_fuzzer.c)', async () => {
    const before = '#include <stdint.h>\n\n#include "../cJSON.h"\n\nint fuzz(const uint8_t* data);\n';
    const after =
      '#include <stdint.h>\n\n#ifdef __cplusplus\nextern "C" {\n#endif\n\n#include "../cJSON.h"\n\nint fuzz(const uint8_t* data);\n\n#ifdef __cplusplus\n}\n#endif\n';
    expect(await syntaxFindings('fuzzing/cjson_read_fuzzer.c', before, after)).toEqual([]);
    expect(await syntaxFindings('fuzzing/cjson_read_fuzzer.cc', before, after)).toEqual([]);
  });
});

describe('C and C++ breaks around macros: flagged', () => {
  it('a `)` dropped in an `#if` line', async () => {
    const before =
      '#if (CJSON_VERSION_MAJOR != 1) || (CJSON_VERSION_MINOR != 7)\n#error versions differ\n#endif\n';
    const after = before.replace('!= 1)', '!= 1');
    const found = await syntaxFindings('cJSON.c', before, after);
    expect(found.map((f) => f.line)).toEqual([1]);
  });

  it('a quote dropped inside a macro’s arguments (fmt format-inl.h)', async () => {
    const before =
      'void flush() {\n  if (fflush(file_) != 0)\n    FMT_THROW(system_error(errno, FMT_STRING("fflush failed")));\n}\n';
    const after = before.replace('FMT_STRING("fflush', 'FMT_STRING(fflush');
    const found = await syntaxFindings('format-inl.h', before, after);
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]!.line).toBe(3);
  });

  it('a character literal’s quote dropped in a file of macro errors (cJSON.c parse_number)', async () => {
    const free = (n: number) =>
      `static void CJSON_CDECL free_${n}(void *pointer)\n{\n    free(pointer);\n}\n`;
    const before = `${free(1)}\nstatic int parse_number(const char *s)\n{\n    if (s[0] == '.')\n    {\n        return 1;\n    }\n    return 0;\n}\n\n${free(2)}`;
    const found = await syntaxFindings('cJSON.c', before, before.replace("== '.')", "== '.)"));
    expect(found.map((f) => f.line)).toContain(8);
  });

  it('a broken pairing is the change’s error even when tree-sitter’s delta found none', () => {
    // In cJSON.c the quote dropped above made tree-sitter read the rest of the 3,000-line file as one error,
    // which swallowed two macro errors the file had: fewer errors after the break than before.
    const before = "int f(char *s)\n{\n    return s[0] == '.';\n}\n";
    const after = before.replace("'.'", "'.");
    const site = cErrorsAdded([], () => undefined, before, after, changedLines(before, after));
    expect(site).toEqual([{ row: 2, column: 0, endRow: 2, kind: 'missing', type: "'", text: '' }]);
  });

  it('a `)` dropped in a `#define`’s parameter list; its `(` dropped is a valid object-like macro', async () => {
    const before =
      '#define TEST_ASSERT_LESS(threshold, actual) UNITY_TEST_ASSERT_SMALLER((threshold), (actual), __LINE__)\n';
    expect(await syntaxFindings('unity.h', before, before.replace('actual)', 'actual'))).not.toEqual([]);
    expect(await syntaxFindings('unity.h', before, before.replace('LESS(', 'LESS'))).toEqual([]);
  });

  it('an error with no macro near it is the change’s as in any language', async () => {
    const before = 'int f(void)\n{\n    return 1;\n}\n';
    expect(await syntaxFindings('a.c', before, before.replace('1;', '1 +;'))).not.toEqual([]);
  });
});

describe('pairingOf', () => {
  it('reads strings, characters, comments, raw strings and digit separators as tokens', () => {
    const text = [
      "int a = 1'000'000; /* ( */ // [",
      'const char *s = "(\\"[";',
      "char c = '{';",
      'auto r = R"x(unpaired ( " )x";',
      'f(a[0]);',
    ].join('\n');
    expect(pairingOf(text, 0, 5)).toMatchObject({
      net: { '(': 0, '[': 0, '{': 0 },
      unclosed: 0,
      endsOpen: false,
    });
  });

  it('a #define’s body may open what it does not close; #error text is prose', () => {
    const text = "#define FMT_BEGIN_NAMESPACE namespace fmt {\n#error don't mix versions\n#define F(a) (a\n";
    expect(pairingOf(text, 0, 3)).toMatchObject({ net: { '(': 0, '[': 0, '{': 0 }, unclosed: 0 });
    expect(pairingOf('#define F(a (a)\n', 0, 1).net['(']).toBe(1);
  });

  it('counts only the rows asked for, from the state the text is in there (inside a comment)', () => {
    const text = '/* a comment\n ( [ {\n*/\nf(';
    expect(pairingOf(text, 1, 2)).toMatchObject({ net: { '(': 0, '[': 0, '{': 0 }, endsOpen: true });
    expect(pairingOf(text, 3, 4).net['(']).toBe(1);
  });

  it('a quote left open at its line’s end is counted, with its row', () => {
    expect(pairingOf('a = 1;\nputs("hello);\n', 0, 2)).toMatchObject({ unclosed: 1, firstUnclosedRow: 1 });
  });

  const line = fc.constantFrom(
    'f(a[0], "x(");',
    'if (x) { y(); }',
    "char c = ')';",
    '// a note (',
    "int n = 1'000;",
    'FMT_TRY { g(); }',
    '#define X(a) (a)',
    '',
  );
  it('property: a change of whole paired lines keeps the pairing; one bracket dropped from them breaks it', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 4, maxLength: 20 }),
        fc.nat(),
        line,
        fc.nat(),
        (lines, at, replacement, which) => {
          const before = lines.join('\n');
          const row = at % lines.length;
          const changed: string[] = [...lines];
          changed[row] = replacement;
          expect(broken(before, changed.join('\n'))).toBeUndefined();
          const brackets = [...replacement.matchAll(/[()[\]{}]/g)].filter((m) => {
            // Brackets inside a string, a character literal or a comment are not code.
            const prefix = replacement.slice(0, m.index);
            return !/["'/]/.test(prefix) && !prefix.startsWith('#');
          });
          if (brackets.length === 0) return;
          const dropped = brackets[which % brackets.length]!.index!;
          changed[row] = replacement.slice(0, dropped) + replacement.slice(dropped + 1);
          expect(broken(before, changed.join('\n'))).toBeDefined();
        },
      ),
      { numRuns: 200 },
    );
  });
});
