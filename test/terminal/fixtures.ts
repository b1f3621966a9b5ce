import type { Diff, DiffLine, Hunk } from '../../src/core/diff.js';
import type { Eol } from '../../src/core/lines.js';

/**
 * Diffs written by hand, so renderer tests do not depend on the diff algorithm. Each line is ' text',
 * '+text' or '-text'; line numbers and counts follow from the starts.
 */
export function hunk(oldStart: number, newStart: number, spec: string[], eol: Eol | '' = '\n'): Hunk {
  let oldLine = oldStart;
  let newLine = newStart;
  const lines: DiffLine[] = spec.map((entry) => {
    const text = entry.slice(1);
    if (entry.startsWith('+')) return { kind: 'add', newLine: newLine++, text, eol };
    if (entry.startsWith('-')) return { kind: 'remove', oldLine: oldLine++, text, eol };
    return { kind: 'context', oldLine: oldLine++, newLine: newLine++, text, eol };
  });
  return {
    oldStart,
    oldLines: oldLine - oldStart,
    newStart,
    newLines: newLine - newStart,
    lines,
  };
}

export function diffOf(...hunks: Hunk[]): Diff {
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    for (const line of h.lines) {
      if (line.kind === 'add') added++;
      if (line.kind === 'remove') removed++;
    }
  }
  return { hunks, added, removed, identical: hunks.length === 0 };
}

export const IDENTICAL: Diff = { hunks: [], added: 0, removed: 0, identical: true };
