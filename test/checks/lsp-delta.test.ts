import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LspDiagnostic } from '../../src/checks/language-server.js';
import { addedDiagnostics } from '../../src/checks/lsp-delta.js';
import { changedLines } from '../../src/checks/syntax-delta.js';

/** The diagnostics a change adds: matched by what they say, so an old error moved by the change is not its. */
function at(line: number, message: string, severity = 1): LspDiagnostic {
  return {
    range: { start: { line, character: 0 }, end: { line, character: 5 } },
    severity,
    source: 'ts',
    code: 2322,
    message,
  };
}

const BEFORE = ['a', 'b', 'c', 'd', 'e'].join('\n');

describe('addedDiagnostics', () => {
  it('an error the new text has and the old did not is added', () => {
    const after = BEFORE.replace('c', 'C');
    const added = addedDiagnostics([], [at(2, 'Type X is not Y')], changedLines(BEFORE, after));
    expect(added.map((d) => d.message)).toEqual(['Type X is not Y']);
  });

  it('an old error moved down by lines added above it is not added', () => {
    const after = ['new1', 'new2', ...BEFORE.split('\n')].join('\n');
    const added = addedDiagnostics([at(4, 'old')], [at(6, 'old')], changedLines(BEFORE, after));
    expect(added).toEqual([]);
  });

  it('a fixed error is not added, and its fix adds nothing', () => {
    const after = BEFORE.replace('b', 'B');
    expect(addedDiagnostics([at(1, 'old')], [], changedLines(BEFORE, after))).toEqual([]);
  });

  it('a second error with the same words is added: the one in the changed lines', () => {
    const after = BEFORE.replace('d', 'D');
    const added = addedDiagnostics(
      [at(0, 'same')],
      [at(0, 'same'), at(3, 'same')],
      changedLines(BEFORE, after),
    );
    expect(added.map((d) => d.range.start.line)).toEqual([3]);
  });

  it('a fix of one error and a new, different one reports the new one', () => {
    const after = BEFORE.replace('b', 'B').replace('d', 'D');
    const added = addedDiagnostics([at(1, 'old')], [at(3, 'new')], changedLines(BEFORE, after));
    expect(added.map((d) => d.message)).toEqual(['new']);
  });

  it('the same words at another severity are another diagnostic', () => {
    const after = BEFORE.replace('c', 'C');
    const added = addedDiagnostics([at(2, 'w', 2)], [at(2, 'w', 1)], changedLines(BEFORE, after));
    expect(added).toHaveLength(1);
  });

  it('whitespace inside a message does not make it another', () => {
    const after = `x\n${BEFORE}`;
    expect(addedDiagnostics([at(1, 'a  b\n  c')], [at(2, 'a b c')], changedLines(BEFORE, after))).toEqual([]);
  });

  it('never adds more than the new text has more of, whatever the lines (property)', () => {
    const diagnostic = fc.record({
      line: fc.nat(9),
      message: fc.constantFrom('m1', 'm2', 'm3'),
      severity: fc.constantFrom(1, 2),
    });
    fc.assert(
      fc.property(fc.array(diagnostic), fc.array(diagnostic), fc.nat(5), (old, fresh, cut) => {
        const lines = changedLines(BEFORE, BEFORE.split('\n').slice(cut).join('\n'));
        const before = old.map((d) => at(d.line, d.message, d.severity));
        const after = fresh.map((d) => at(d.line, d.message, d.severity));
        const added = addedDiagnostics(before, after, lines);
        for (const key of new Set(after.map((d) => `${d.severity}${d.message}`))) {
          const count = (list: LspDiagnostic[]) =>
            list.filter((d) => `${d.severity}${d.message}` === key).length;
          expect(count(added)).toBe(Math.max(0, count(after) - count(before)));
        }
        // Every added diagnostic is one of the new text's.
        for (const d of added) expect(after).toContain(d);
      }),
    );
  });
});
