/**
 * The streaming path writes exactly the bytes the in-memory path writes, on files both can hold: the same
 * tool calls go to a workspace whose threshold sends every file through the streaming path (with tiny
 * chunks, so matches and line endings straddle chunk borders) and to one where nothing streams.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../../src/tools/result.js';
import { makeWorkspace } from '../../tools/workspace-fixture.js';

const charArb = fc.constantFrom('a', 'b', 'x', ' ', '\t', 'é', '😀', '’', '-', '1', '"');
const lineArb = fc.record({
  text: fc.array(charArb, { maxLength: 6 }).map((chars) => chars.join('')),
  eol: fc.constantFrom('\n', '\r\n', '\r'),
});
const fileArb = fc
  .record({
    lines: fc.array(lineArb, { minLength: 1, maxLength: 40 }),
    finalNewline: fc.boolean(),
    bom: fc.boolean(),
    uniformEol: fc.option(fc.constantFrom('\n', '\r\n', '\r'), { nil: undefined }),
  })
  .map(({ lines, finalNewline, bom, uniformEol }) => {
    const text = lines
      .map((line, i) => line.text + (i === lines.length - 1 && !finalNewline ? '' : (uniformEol ?? line.eol)))
      .join('');
    return { text: text === '' ? 'a' : text, bom };
  });

/** Old text: a piece of the file (as is, with "\n" line breaks, with slips the tolerant tiers forgive) or noise. */
function oldTextArb(text: string) {
  // Whole characters: half of a surrogate pair is not text anyone would send.
  const chars = Array.from(text);
  const piece = fc
    .tuple(fc.nat(chars.length), fc.integer({ min: 1, max: 12 }))
    .map(([start, length]) => chars.slice(start, start + length).join(''));
  return fc.oneof(
    piece,
    piece.map((p) => p.replace(/\r\n?/g, '\n')),
    piece.map((p) => p.replace(/\r\n?|\n/g, '\n').replace(/\n/g, '  \n')),
    piece.map((p) => `  ${p.replace(/\r\n?/g, '\n').replace(/\n/g, '\n  ')}`),
    piece.map((p) => p.replace(/’/g, "'").replace(/-/g, '—')),
    fc.constantFrom('a', 'x', 'ab', 'zz', '😀', '\n', '\\n', '     1\ta'),
  );
}

const newTextArb = fc.oneof(
  fc.array(fc.constantFrom('N', 'é', '\n', ' ', 'a', '😀', '\r\n'), { maxLength: 6 }).map((c) => c.join('')),
  fc.constant(''),
);

type Op =
  | { tool: 'edit_file'; old_string: string; new_string: string; replace_all: boolean }
  | { tool: 'edit_lines'; edits: { range: [number, number]; replacement: string }[] };

function opArb(text: string): fc.Arbitrary<Op> {
  const lineCount = text.split(/\r\n|\r|\n/).length + 1;
  const rangeArb = fc
    .tuple(fc.integer({ min: 0, max: lineCount + 1 }), fc.integer({ min: 0, max: 3 }))
    .map(([start, length]): [number, number] => [start, start + length]);
  return fc.oneof(
    fc.record({
      tool: fc.constant('edit_file' as const),
      old_string: oldTextArb(text),
      new_string: newTextArb,
      replace_all: fc.boolean(),
    }),
    fc.record({
      tool: fc.constant('edit_lines' as const),
      edits: fc
        .array(fc.record({ range: rangeArb, replacement: newTextArb }), { minLength: 1, maxLength: 3 })
        .map((edits) => edits.sort((a, b) => a.range[0] - b.range[0])),
    }),
  );
}

function outcome(result: ToolResult) {
  return result.ok ? 'ok' : result.code;
}

describe('streaming and in-memory paths', () => {
  it('write the same bytes and fail with the same codes, and undo restores the same bytes', async () => {
    const scenario = fileArb.chain((file) =>
      fc.record({
        file: fc.constant(file),
        ops: fc.array(opArb(file.text), { minLength: 1, maxLength: 2 }),
        chunk: fc.integer({ min: 1, max: 9 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(scenario, async ({ file, ops, chunk }) => {
        const bytes = Buffer.concat([
          Buffer.from(file.bom ? [0xef, 0xbb, 0xbf] : []),
          Buffer.from(file.text, 'utf8'),
        ]);
        const memory = await makeWorkspace({ 'f.txt': bytes });
        const streamed = await makeWorkspace({ 'f.txt': bytes });
        const inMemory = memory.tools();
        const streaming = streamed.tools({ streamThreshold: 1, streamChunkSize: chunk });
        for (const tools of [inMemory, streaming]) {
          const read = await tools.execute('read_file', { file_path: 'f.txt' });
          expect(read.ok).toBe(true);
        }
        // Versions written, to walk back through with undo.
        const versions: Buffer[] = [bytes];
        for (const op of ops) {
          const { tool, ...input } = op;
          const a = await inMemory.execute(tool, { file_path: 'f.txt', ...input });
          const b = await streaming.execute(tool, { file_path: 'f.txt', ...input });
          expect({ result: outcome(b), message: b.ok ? '' : b.message }).toMatchObject({
            result: outcome(a),
          });
          const now = await memory.bytes('f.txt');
          expect(await streamed.bytes('f.txt')).toEqual(now);
          if (a.ok && b.ok) {
            expect(b.details.kind).toBe(a.details.kind);
            expect(b.details.replacements).toBe(a.details.replacements);
            if (a.details.kind !== 'noop') versions.push(now);
          }
        }
        while (versions.length > 1) {
          versions.pop();
          const undoA = await inMemory.execute('undo_edit', { file_path: 'f.txt' });
          const undoB = await streaming.execute('undo_edit', { file_path: 'f.txt' });
          expect(outcome(undoB)).toBe(outcome(undoA));
          expect(await streamed.bytes('f.txt')).toEqual(versions[versions.length - 1]);
        }
      }),
      { numRuns: Number(process.env.RUNS ?? 300) },
    );
  }, 600_000);
});
