/**
 * OpenCode's apply_patch under editgate's hook (src/hooks/agents/opencode-patch.ts, codex-patch.ts): what
 * editgate lets through is what OpenCode writes. The oracle below is OpenCode 1.18.33's reading as its
 * source does it (a loose parser that skips what it does not know, then each hunk at the first place its
 * lines match exactly, else ignoring trailing spaces, else all spaces, else typography), written again here
 * from that reading; the property checks editgate's bytes against it on patches made to hit its corners.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProposedFile } from '../../src/hooks/adapter.js';
import { patchFiles } from '../../src/hooks/agents/codex-patch.js';
import { openCodePatchProblem } from '../../src/hooks/agents/opencode-patch.js';

interface Chunk {
  old: string[];
  added: string[];
  context?: string;
  eof: boolean;
}
type Operation =
  | { type: 'add'; path: string; content: string }
  | { type: 'delete'; path: string }
  | { type: 'update'; path: string; chunks: Chunk[] };

function openCodeParse(patch: string): Operation[] {
  const trimmed = patch.trim();
  const heredoc = /^(?:cat\s+)?<<['"]?(\w+)['"]?\s*\n([\s\S]*?)\n\1\s*$/.exec(trimmed);
  const lines = (heredoc ? heredoc[2]! : trimmed).split('\n');
  const begin = lines.findIndex((line) => line.trim() === '*** Begin Patch');
  const end = lines.findIndex((line) => line.trim() === '*** End Patch');
  if (begin === -1 || end === -1 || begin >= end) throw new Error('no markers');
  const operations: Operation[] = [];
  let i = begin + 1;
  while (i < end) {
    const line = lines[i]!;
    if (line.startsWith('*** Add File:')) {
      const added: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.startsWith('***')) {
        if (lines[i]!.startsWith('+')) added.push(lines[i]!.slice(1));
        i++;
      }
      operations.push({ type: 'add', path: line.slice(13).trim(), content: added.join('\n') });
    } else if (line.startsWith('*** Delete File:')) {
      operations.push({ type: 'delete', path: line.slice(16).trim() });
      i++;
    } else if (line.startsWith('*** Update File:')) {
      const path = line.slice(16).trim();
      i++;
      const chunks: Chunk[] = [];
      while (i < lines.length && !lines[i]!.startsWith('***')) {
        if (!lines[i]!.startsWith('@@')) {
          i++;
          continue;
        }
        const context = lines[i]!.slice(2).trim();
        i++;
        const chunk: Chunk = { old: [], added: [], eof: false, ...(context ? { context } : {}) };
        while (i < lines.length && !lines[i]!.startsWith('@@') && !lines[i]!.startsWith('***')) {
          const each = lines[i]!;
          if (each === '*** End of File') break;
          if (each.startsWith(' ')) {
            chunk.old.push(each.slice(1));
            chunk.added.push(each.slice(1));
          } else if (each.startsWith('-')) chunk.old.push(each.slice(1));
          else if (each.startsWith('+')) chunk.added.push(each.slice(1));
          i++;
        }
        if (lines[i] === '*** End of File') {
          chunk.eof = true;
          i++;
        }
        chunks.push(chunk);
      }
      operations.push({ type: 'update', path, chunks });
    } else i++;
  }
  return operations;
}

const typography = (text: string) =>
  text
    .replace(/[\u2018\u2019\u201A\u201B]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F]/g, '"')
    .replace(/[\u2010-\u2015]/g, '-')
    .replace(/\u2026/g, '...')
    .replace(/\u00A0/g, ' ');
const PASSES: Array<(a: string, b: string) => boolean> = [
  (a, b) => a === b,
  (a, b) => a.trimEnd() === b.trimEnd(),
  (a, b) => a.trim() === b.trim(),
  (a, b) => typography(a.trim()) === typography(b.trim()),
];

function seek(lines: string[], pattern: string[], from: number, eof: boolean): number {
  if (pattern.length === 0) return -1;
  for (const same of PASSES) {
    const fits = (at: number) => pattern.every((line, offset) => same(lines[at + offset]!, line));
    if (eof && lines.length - pattern.length >= from && fits(lines.length - pattern.length))
      return lines.length - pattern.length;
    for (let at = from; at <= lines.length - pattern.length; at++) if (fits(at)) return at;
  }
  return -1;
}

function openCodeUpdate(text: string, chunks: Chunk[]): string {
  const bom = text.startsWith('\uFEFF');
  const lines = (bom ? text.slice(1) : text).split('\n');
  if (lines.at(-1) === '') lines.pop();
  const replacements: Array<[number, number, string[]]> = [];
  let from = 0;
  for (const chunk of chunks) {
    if (chunk.context) {
      const at = seek(lines, [chunk.context], from, false);
      if (at === -1) throw new Error('no context');
      from = at + 1;
    }
    if (chunk.old.length === 0) {
      replacements.push([
        lines.length > 0 && lines.at(-1) === '' ? lines.length - 1 : lines.length,
        0,
        chunk.added,
      ]);
      continue;
    }
    let [old, added] = [chunk.old, chunk.added];
    let at = seek(lines, old, from, chunk.eof);
    if (at === -1 && old.at(-1) === '') {
      old = old.slice(0, -1);
      if (added.at(-1) === '') added = added.slice(0, -1);
      at = seek(lines, old, from, chunk.eof);
    }
    if (at === -1) throw new Error('no match');
    replacements.push([at, old.length, added]);
    from = at + old.length;
  }
  const result = [...lines];
  for (const [at, remove, insert] of replacements.sort((a, b) => a[0] - b[0]).reverse())
    result.splice(at, remove, ...insert);
  if (result.length === 0 || result.at(-1) !== '') result.push('');
  return (bom ? '\uFEFF' : '') + result.join('\n');
}

/** What OpenCode leaves in each file, or undefined where it fails the call. */
function openCodeWrites(
  patch: string,
  files: Record<string, string>,
): Record<string, string | null> | undefined {
  try {
    const out: Record<string, string | null> = {};
    for (const operation of openCodeParse(patch)) {
      if (operation.type === 'add') {
        const { content } = operation;
        out[operation.path] = content === '' || content.endsWith('\n') ? content : `${content}\n`;
      } else if (operation.type === 'delete') out[operation.path] = null;
      else {
        const before = files[operation.path];
        if (before === undefined) return undefined;
        out[operation.path] = openCodeUpdate(before, operation.chunks);
      }
    }
    return out;
  } catch {
    return undefined;
  }
}

/** What editgate lets through and shows, or the refusal. */
function editgateWrites(
  patch: string,
  files: Record<string, string>,
): Record<string, string | null> | string {
  const problem = openCodePatchProblem(patch);
  if (problem) return problem;
  const proposed = patchFiles(patch, '/p', 'OpenCode');
  if ('refuse' in proposed) return proposed.refuse;
  const out: Record<string, string | null> = {};
  try {
    for (const file of proposed as ProposedFile[]) {
      const name = file.path.slice('/p/'.length);
      if ('delete' in file && file.delete) out[name] = null;
      else if ('expected' in file && file.expected) {
        const current = files[name] === undefined ? null : Buffer.from(files[name]!, 'utf8');
        out[name] = file.expected(current).toString('utf8');
      }
    }
  } catch (error) {
    return (error as Error).message;
  }
  return out;
}

const patchOf = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');

describe("OpenCode's apply_patch: what editgate lets through is what OpenCode writes", () => {
  it('passes a patch both read the same, and writes what OpenCode would', () => {
    const files = { 'a.txt': 'one\ntwo\nthree\n' };
    const patch = patchOf('*** Update File: a.txt', '@@ one', '-two', '+TWO', '*** Add File: b.txt', '+new');
    expect(editgateWrites(patch, files)).toEqual({ 'a.txt': 'one\nTWO\nthree\n', 'b.txt': 'new\n' });
    expect(openCodeWrites(patch, files)).toEqual(editgateWrites(patch, files));
  });

  it('refuses the framing OpenCode reads otherwise, saying what to send instead', () => {
    const files = { 'a.txt': 'one\n\ntwo\n' };
    const cases: Array<[string, RegExp]> = [
      [
        patchOf('*** Update File: a.txt', '-one', '+ONE'),
        /before the first "@@".*Start each file's first hunk with "@@"/,
      ],
      [patchOf('*** Update File: a.txt', '@@', ' one', '', '-two', '+TWO'), /is empty.*a single space/],
      [
        patchOf('*** Update File: a.txt', '@@ -1,3 +1,3 @@', '-one', '+ONE'),
        /unified diff's "@@ -N,M \+N,M @@"/,
      ],
      [patchOf('*** Add File: b.txt', '+x', '+'), /last line is empty, and OpenCode's apply_patch drops it/],
      [patchOf('*** Update File: a.txt', '@@', '-one', '+ONE').replaceAll('\n', '\r\n'), /carriage returns/],
    ];
    for (const [patch, why] of cases) {
      const answer = editgateWrites(patch, files);
      expect(answer, patch).toMatch(why);
      expect(answer).toMatch(/Nothing was written\.$/);
    }
    // Codex's own refusals name OpenCode here: a hunk whose lines occur twice.
    const twice = editgateWrites(patchOf('*** Update File: a.txt', '@@', '-', '+x'), {
      'a.txt': 'a\n\nb\n\nc\n',
    });
    expect(twice).toMatch(/OpenCode would apply it at the first place/);
  });

  it("property: every patch editgate lets through gives OpenCode's bytes", () => {
    const line = fc.constantFrom('a', 'b', 'c', '', ' a', 'a ', '\u2019q', "'q", 'x y');
    let through = 0;
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.nat(),
        fc.array(line, { maxLength: 3 }),
        fc.nat(),
        fc.constantFrom('@@', 'anchor', 'none', 'unified'),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (lines, start, length, added, contextSize, header, eof, emptyAsBare, onlyAdded) => {
          const text = `${lines.join('\n')}\n`;
          const from = start % lines.length;
          const to = Math.min(lines.length, from + 1 + (length % 3));
          const before = lines.slice(Math.max(0, from - (contextSize % 2)), from);
          // Only added lines: a hunk both put at the end of the file.
          const body = (
            onlyAdded
              ? added.map((each) => `+${each}`)
              : [
                  ...before.map((each) => ` ${each}`),
                  ...lines.slice(from, to).map((each) => `-${each}`),
                  ...added.map((each) => `+${each}`),
                ]
          ).map((each) => (emptyAsBare && each === ' ' ? '' : each));
          const head =
            header === '@@'
              ? ['@@']
              : header === 'anchor' && from > 0
                ? [`@@ ${lines[0]}`]
                : header === 'unified'
                  ? ['@@ -1 +1 @@']
                  : [];
          const patch = patchOf(
            '*** Update File: a.txt',
            ...head,
            ...body,
            ...(eof && to === lines.length ? ['*** End of File'] : []),
          );
          const ours = editgateWrites(patch, { 'a.txt': text });
          if (typeof ours === 'string') return;
          through++;
          expect(ours).toEqual(openCodeWrites(patch, { 'a.txt': text }));
        },
      ),
      { numRuns: 3000 },
    );
    // Not vacuous: many patches go through.
    expect(through).toBeGreaterThan(300);
  });
});
