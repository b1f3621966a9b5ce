/**
 * The sparse line index and everything built on it count lines exactly as lines.ts does ("\r\n", "\n" and
 * a lone "\r"), whatever the chunk size and stride (tiny ones here, so every "\r\n" and multi-byte
 * character is cut by a chunk border somewhere), and the index derived for an edited file equals the one
 * built from scratch.
 */
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineNumberAt, lineStartOffsets, splitLines, summarizeEol } from '../../../src/core/lines.js';
import { lineBlocks } from '../../../src/workspace/stream/read/line-blocks.js';
import {
  buildLineIndex,
  type LineIndex,
  lineAt,
  lineStart,
} from '../../../src/workspace/stream/read/line-index.js';
import { readLines } from '../../../src/workspace/stream/read/read-lines.js';
import { writeWithSpans } from '../../../src/workspace/stream/write/span-writer.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'editgate-index-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const textArb = fc
  .array(fc.constantFrom('a', 'bc', 'é', '😀', '\n', '\r', '\r\n', ' '), { maxLength: 60 })
  .map((parts) => parts.join(''));
const fileArb = fc.record({ text: textArb, bom: fc.boolean() });
const tuningArb = fc.record({
  chunk: fc.integer({ min: 1, max: 7 }),
  stride: fc.integer({ min: 1, max: 9 }),
});

let counter = 0;
async function withFile<T>(bytes: Buffer, fn: (path: string) => Promise<T>): Promise<T> {
  const path = join(folder, `f${counter++}.txt`);
  await writeFile(path, bytes);
  try {
    return await fn(path);
  } finally {
    await rm(path, { force: true });
  }
}

function bytesOf(text: string, bom: boolean): Buffer {
  return Buffer.concat([Buffer.from(bom ? [0xef, 0xbb, 0xbf] : []), Buffer.from(text, 'utf8')]);
}

async function indexOf(path: string, chunk: number, stride: number): Promise<LineIndex> {
  const handle = await open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    return await buildLineIndex(handle, size, 'key', { chunkSize: chunk, stride, display: 'f.txt' });
  } finally {
    await handle.close();
  }
}

/** Byte offset of each line start (and of the end), from the text. */
function byteStarts(text: string, bom: boolean): number[] {
  const base = bom ? 3 : 0;
  return lineStartOffsets(text).map((offset) => base + Buffer.byteLength(text.slice(0, offset)));
}

describe('line index', () => {
  it('counts lines and line endings like lines.ts, and finds every line start', async () => {
    await fc.assert(
      fc.asyncProperty(fileArb, tuningArb, async ({ text, bom }, { chunk, stride }) => {
        await withFile(bytesOf(text, bom), async (path) => {
          const index = await indexOf(path, chunk, stride);
          const lines = splitLines(text);
          const eol = summarizeEol(text);
          expect(index.lineCount).toBe(lines.length);
          expect(index.eol).toEqual({ lf: eol.counts['\n'], crlf: eol.counts['\r\n'], cr: eol.counts['\r'] });
          expect(index.finalNewline).toBe(text.length > 0 && eol.finalNewline);
          const starts = byteStarts(text, bom);
          for (let i = 0; i < index.checkpoints; i++) {
            // An empty text still has its first checkpoint, at the (empty) first line.
            expect(starts[index.lines[i]! - 1] ?? index.size).toBe(index.offsets[i]);
          }
          const handle = await open(path, 'r');
          try {
            for (let n = 1; n <= lines.length + 1; n++) {
              const expected = n <= lines.length ? starts[n - 1] : index.size;
              expect(await lineStart(handle, index, n, chunk)).toBe(expected);
            }
            const textStarts = lineStartOffsets(text);
            for (let char = 0; char < text.length; char++) {
              // A "\r\n" is one terminator: its "\n" is never asked about.
              if (text[char] === '\n' && text[char - 1] === '\r') continue;
              const offset = (bom ? 3 : 0) + Buffer.byteLength(text.slice(0, char));
              expect(await lineAt(handle, index, offset, chunk)).toBe(lineNumberAt(textStarts, char));
            }
          } finally {
            await handle.close();
          }
        });
      }),
      { numRuns: 200 },
    );
  });

  it('reads any page of lines with their endings, as splitLines splits them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fileArb,
        tuningArb,
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 30 }),
        async ({ text, bom }, { chunk, stride }, first, limit) => {
          await withFile(bytesOf(text, bom), async (path) => {
            const index = await indexOf(path, chunk, stride);
            const handle = await open(path, 'r');
            const got: { text: string; eol: string }[] = [];
            try {
              await readLines(
                handle,
                index,
                first,
                limit,
                (line) => got.push({ text: line.text, eol: line.eol }) > 0,
                {
                  chunkSize: chunk,
                  maxLineBytes: 1 << 20,
                },
              );
            } finally {
              await handle.close();
            }
            expect(got).toEqual(splitLines(text).slice(first - 1, first - 1 + limit));
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('cuts a line longer than the limit at a character boundary and says how long it was', async () => {
    const long = `${'é'.repeat(10)}\nshort\n`;
    await withFile(Buffer.from(long), async (path) => {
      const index = await indexOf(path, 3, 4);
      const handle = await open(path, 'r');
      const got: { text: string; fullBytes?: number }[] = [];
      await readLines(handle, index, 1, 5, (line) => got.push(line) > 0, { chunkSize: 3, maxLineBytes: 7 });
      await handle.close();
      expect(got[0]).toMatchObject({ text: 'ééé', fullBytes: 20 });
      expect(got[1]).toMatchObject({ text: 'short' });
    });
  });

  it('gives out blocks of whole lines that cover every line exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fileArb,
        tuningArb,
        fc.integer({ min: 0, max: 3 }),
        async ({ text, bom }, { chunk, stride }, overlap) => {
          await withFile(bytesOf(text, bom), async (path) => {
            const index = await indexOf(path, chunk, stride);
            const handle = await open(path, 'r');
            let own = '';
            let nextLine = 1;
            try {
              for await (const block of lineBlocks(handle, index, {
                chunkSize: chunk,
                blockBytes: stride,
                overlap,
              })) {
                expect(block.line).toBe(nextLine);
                const mine = block.text.slice(0, block.ownChars);
                own += mine;
                nextLine += splitLines(mine).length;
                // The overlap is the next lines of the file.
                expect(text.startsWith(block.text, own.length - mine.length)).toBe(true);
              }
            } finally {
              await handle.close();
            }
            expect(own).toBe(text);
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('the index of an edited file', () => {
  const spansArb = (size: number) =>
    fc
      .array(
        fc.record({
          at: fc.integer({ min: 0, max: size }),
          length: fc.integer({ min: 0, max: 4 }),
          insert: fc
            .array(fc.constantFrom('x', '\n', '\r', '\r\n', 'é'), { maxLength: 4 })
            .map((p) => p.join('')),
        }),
        { maxLength: 5 },
      )
      .map((raw) => {
        // Sorted, not overlapping, never inside a "\r\n" or a character (as every planner guarantees).
        raw.sort((a, b) => a.at - b.at);
        const spans: { start: number; end: number; insert: string }[] = [];
        let floor = 0;
        for (const { at, length, insert } of raw) {
          const start = Math.max(at, floor);
          const end = Math.min(size, start + length);
          if (start > size) break;
          spans.push({ start, end, insert });
          floor = end;
        }
        return spans;
      });

  it('is the index built from scratch, whatever the spans do to line endings at their borders', async () => {
    const scenario = fc
      .record({
        text: textArb,
        chunk: fc.integer({ min: 1, max: 7 }),
        stride: fc.integer({ min: 1, max: 9 }),
      })
      .chain((base) => fc.record({ base: fc.constant(base), spans: spansArb(base.text.length) }));
    await fc.assert(
      fc.asyncProperty(scenario, async ({ base: { text, chunk, stride }, spans }) => {
        // Spans are given in characters of the text; skip the ones that would split a "\r\n" or a surrogate pair.
        const splits = (at: number) =>
          (text[at - 1] === '\r' && text[at] === '\n') ||
          (text.charCodeAt(at) >= 0xdc00 && text.charCodeAt(at) <= 0xdfff);
        const safe = spans.filter(({ start, end }) => !splits(start) && !splits(end));
        let expected = '';
        let at = 0;
        for (const span of safe) {
          expected += text.slice(at, span.start) + span.insert;
          at = span.end;
        }
        expected += text.slice(at);
        await withFile(Buffer.from(text), async (path) => {
          const index = await indexOf(path, chunk, stride);
          const handle = await open(path, 'r');
          const temp = join(folder, `t${counter++}.tmp`);
          const byte = (char: number) => Buffer.byteLength(text.slice(0, char));
          try {
            const result = await writeWithSpans(
              handle,
              index,
              safe.map((span) => ({
                start: byte(span.start),
                end: byte(span.end),
                insert: Buffer.from(span.insert),
              })),
              { temp, owner: null, chunkSize: chunk, patchDir: null, keep: 10 },
            );
            expect((await readFile(result.temp)).toString()).toBe(expected);
            const fresh = await indexOf(result.temp, chunk, stride);
            expect(result.index.lineCount).toBe(fresh.lineCount);
            expect(result.index.eol).toEqual(fresh.eol);
            expect(result.index.finalNewline).toBe(fresh.finalNewline);
            const starts = byteStarts(expected, false);
            for (let i = 0; i < result.index.checkpoints; i++) {
              expect(starts[result.index.lines[i]! - 1] ?? result.index.size).toBe(result.index.offsets[i]);
            }
          } finally {
            await handle.close();
            await rm(temp, { force: true });
          }
        });
      }),
      { numRuns: 300 },
    );
  });
});
