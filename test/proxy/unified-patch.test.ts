/**
 * The strict patch applier behind the filesystem server's dryRun preview and the generic patch shape:
 * every diff editgate itself writes applies back exactly (a property over texts with and without a final
 * newline, CRLF kept inside lines), and anything that does not fit exactly is refused, never fuzzed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffLines, formatUnifiedDiff } from '../../src/core/diff.js';
import { applyUnifiedPatch, PatchError, parseUnifiedPatch } from '../../src/proxy/unified-patch.js';

/** Texts of a few repeating lines, "\n"-separated, the last with or without its newline. */
const text = fc
  .tuple(
    fc.array(fc.constantFrom('a', 'b', 'c', '', 'x\r', 'é 😀', '  indented'), { maxLength: 30 }),
    fc.boolean(),
  )
  .map(([lines, final]) => (lines.length === 0 ? '' : lines.join('\n') + (final ? '\n' : '')));

describe('applyUnifiedPatch', () => {
  it("applies every diff editgate writes back exactly, and what it writes for the server's diffs", () => {
    fc.assert(
      fc.property(text, text, fc.nat(4), (before, after, context) => {
        const diff = formatUnifiedDiff(diffLines(before, after, { context }), { oldPath: 'f', newPath: 'f' });
        expect(applyUnifiedPatch(before, parseUnifiedPatch(diff))).toBe(after);
      }),
      { numRuns: 400 },
    );
  });

  it('reads the headers jsdiff writes (Index, ===, --- and +++ with a tab) and the no-newline marker', () => {
    const patch = [
      'Index: /tmp/a.txt',
      '===================================================================',
      '--- /tmp/a.txt\toriginal',
      '+++ /tmp/a.txt\tmodified',
      '@@ -1,2 +1,2 @@',
      ' one',
      '-two',
      '\\ No newline at end of file',
      '+TWO',
      '\\ No newline at end of file',
      '',
    ].join('\n');
    expect(applyUnifiedPatch('one\ntwo', parseUnifiedPatch(patch))).toBe('one\nTWO');
    // A patch with no hunks (the server found nothing to change) leaves the text as it is.
    expect(applyUnifiedPatch('same\n', parseUnifiedPatch('--- a\n+++ b\n'))).toBe('same\n');
  });

  it('refuses a hunk that does not match exactly where it says, and malformed or multi-file diffs', () => {
    const hunks = parseUnifiedPatch('@@ -2,1 +2,1 @@\n-b\n+B\n');
    expect(() => applyUnifiedPatch('a\nc\nb\n', hunks)).toThrow(PatchError);
    expect(() => applyUnifiedPatch('a\nb', hunks)).toThrow(/does not match the text at line 2/);
    expect(() => parseUnifiedPatch('hello\n')).toThrow(/neither a header nor a hunk/);
    expect(() => parseUnifiedPatch('@@ -1,2 +1,1 @@\n-a\n')).toThrow(/ends inside a hunk/);
    expect(() =>
      parseUnifiedPatch('--- a\n+++ a\n@@ -1 +1 @@\n-a\n+b\n--- b\n+++ b\n@@ -1 +1 @@\n-a\n+b\n'),
    ).toThrow(/more than one file/);
    expect(() => applyUnifiedPatch('a\n', parseUnifiedPatch('@@ -5,1 +5,1 @@\n-a\n+b\n'))).toThrow(
      PatchError,
    );
  });
});
