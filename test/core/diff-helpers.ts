import type { Diff } from '../../src/core/diff.js';
import { splitLines } from '../../src/core/lines.js';

/**
 * Rebuild the new text from the old text and a diff, checking on the way everything a consumer relies on:
 * hunks in order and apart, header counts and starts, consecutive line numbers, context and removed lines
 * equal to the old lines (terminator included), added/removed totals. Throws on the first inconsistency.
 */
export function applyDiff(oldText: string, diff: Diff): string {
  const old = splitLines(oldText);
  const out: string[] = [];
  let next = 0; // 0-based index of the next old line to copy
  let offset = 0; // new line number minus old line number outside hunks
  let added = 0;
  let removed = 0;
  if (diff.identical !== (diff.hunks.length === 0)) throw new Error('identical must mean no hunks');
  for (const [h, hunk] of diff.hunks.entries()) {
    const first = hunk.oldLines > 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const firstNew = hunk.newLines > 0 ? hunk.newStart - 1 : hunk.newStart;
    if (first < next || (h > 0 && first === next))
      throw new Error(`hunk ${h} overlaps or touches the previous one`);
    if (firstNew - first !== offset) throw new Error(`hunk ${h} new start ${hunk.newStart} is inconsistent`);
    if (hunk.lines.length === 0) throw new Error(`hunk ${h} is empty`);
    for (; next < first; next++) out.push(old[next]!.text + old[next]!.eol);
    let oldLine = first + 1;
    let newLine = firstNew + 1;
    let oldCount = 0;
    let newCount = 0;
    for (const line of hunk.lines) {
      if (line.kind !== 'add') {
        const source = old[oldLine - 1];
        if (line.oldLine !== oldLine)
          throw new Error(`hunk ${h}: old line ${line.oldLine}, expected ${oldLine}`);
        if (!source || source.text !== line.text || source.eol !== line.eol) {
          throw new Error(`hunk ${h}: old line ${oldLine} is not ${JSON.stringify(line.text + line.eol)}`);
        }
        oldLine++;
        oldCount++;
        next++;
      } else if (line.oldLine !== undefined) throw new Error('an added line has an old line number');
      if (line.kind !== 'remove') {
        if (line.newLine !== newLine)
          throw new Error(`hunk ${h}: new line ${line.newLine}, expected ${newLine}`);
        out.push(line.text + line.eol);
        newLine++;
        newCount++;
      } else if (line.newLine !== undefined) throw new Error('a removed line has a new line number');
      if (line.kind === 'add') added++;
      if (line.kind === 'remove') removed++;
      if (line.eol === '' && line.kind !== 'add' && oldLine - 1 !== old.length) {
        throw new Error('a line without terminator that is not the last line');
      }
    }
    if (oldCount !== hunk.oldLines || newCount !== hunk.newLines) throw new Error(`hunk ${h}: wrong counts`);
    offset += newCount - oldCount;
  }
  for (; next < old.length; next++) out.push(old[next]!.text + old[next]!.eol);
  if (added !== diff.added || removed !== diff.removed) throw new Error('added/removed totals do not match');
  return out.join('');
}

/** Deterministic pseudo-random numbers (mulberry32), so generated inputs are the same on every run. */
export function random(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Code-like lines: mostly unique statements, with the repeated `}`, blank and `return;` lines real code has. */
export function codeLines(count: number, next: () => number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const x = next();
    if (x < 0.08) lines.push('}');
    else if (x < 0.15) lines.push('');
    else if (x < 0.2) lines.push('  return;');
    else {
      const id = `v${Math.floor(next() * 1e9).toString(36)}`;
      lines.push(
        `${'  '.repeat(1 + Math.floor(next() * 3))}const ${id} = compute(${Math.floor(next() * 1e6)});`,
      );
    }
  }
  return lines;
}
