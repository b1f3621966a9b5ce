/**
 * read_file shows the same lines whether a file is streamed or read into memory: same numbering, same
 * text, same place to stop (the line limit, and the 256,000-character output limit counted in characters
 * whatever the bytes). The streamed side uses small chunks so lines straddle chunk borders.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../src/tools/result.js';
import { makeWorkspace } from './workspace-fixture.js';

const pieceArb = fc.constantFrom('a', 'b', ' ', '\t', 'é', '😀', '’', '中', 'x1');
const lineArb = fc.oneof(
  { weight: 20, arbitrary: fc.array(pieceArb, { maxLength: 12 }).map((p) => p.join('')) },
  // Long lines, so the character limit falls inside a page (3-byte and 4-byte characters count less
  // against it than their bytes).
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', 'é', '中', '😀'), fc.integer({ min: 20_000, max: 60_000 }))
      .map(([char, count]) => char.repeat(Math.ceil(count / char.length))),
  },
);
const fileArb = fc
  .record({
    lines: fc.array(lineArb, { minLength: 1, maxLength: 60 }),
    eol: fc.constantFrom('\n', '\r\n', 'mixed'),
    finalNewline: fc.boolean(),
    bom: fc.boolean(),
  })
  .map(({ lines, eol, finalNewline, bom }) => {
    const ends = ['\n', '\r\n', '\r'];
    const text = lines
      .map((line, i) => {
        if (i === lines.length - 1 && !finalNewline) return line;
        return line + (eol === 'mixed' ? ends[i % 3]! : eol);
      })
      .join('');
    return { text: text === '' ? 'a' : text, bom, lineCount: lines.length };
  });

/** The numbered lines of a read, without the footer. */
function shown(result: ToolResult): string[] {
  if (!result.ok) return [result.code];
  const { firstLine, lastLine } = result.details as { firstLine?: number; lastLine?: number };
  if (firstLine === undefined || lastLine === undefined) return result.message.split('\n');
  return result.message.split('\n').slice(0, lastLine - firstLine + 1);
}

describe('read_file, streamed or in memory', () => {
  it('shows the same lines and stops at the same line', async () => {
    await fc.assert(
      fc.asyncProperty(
        fileArb,
        fc.integer({ min: 1, max: 70 }),
        fc.option(fc.integer({ min: 1, max: 70 }), { nil: undefined }),
        fc.integer({ min: 7, max: 300 }),
        async (file, offset, limit, chunk) => {
          const content = Buffer.concat([
            Buffer.from(file.bom ? [0xef, 0xbb, 0xbf] : []),
            Buffer.from(file.text, 'utf8'),
          ]);
          const ws = await makeWorkspace({ 'f.txt': content });
          const streamed = ws.tools({ streamThreshold: 1, streamChunkSize: chunk });
          const memory = ws.tools();
          const input = { file_path: 'f.txt', offset, ...(limit === undefined ? {} : { limit }) };
          const a = await streamed.execute('read_file', input);
          const b = await memory.execute('read_file', input);
          expect(a.ok && a.details.streamed).toSatisfy((v) => !a.ok || v === true);
          expect(shown(a)).toEqual(shown(b));
          if (a.ok && b.ok) {
            expect(a.details.lastLine).toBe(b.details.lastLine);
            expect(a.details.lines).toBe(b.details.lines);
          }
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);

  it('fills the character limit exactly: the line that just fits is shown, the next is not', async () => {
    // Each shown line is "   123\t" (7) + 248 characters + "\n": 1000 of them are 256,000 characters.
    const text = Array.from({ length: 1500 }, (_, i) => `${String(i).padStart(8, '0')}${'x'.repeat(240)}\n`);
    const ws = await makeWorkspace({ 'f.txt': text.join('') });
    for (const crlf of [false, true]) {
      if (crlf) await ws.put('f.txt', text.join('').replace(/\n/g, '\r\n'));
      const a = await ws.tools({ streamThreshold: 1 }).execute('read_file', { file_path: 'f.txt' });
      const b = await ws.tools().execute('read_file', { file_path: 'f.txt' });
      expect(a.ok && b.ok).toBe(true);
      expect(a.details.lastLine).toBe(1000);
      expect(shown(a)).toEqual(shown(b));
    }
  });

  it('stops at the character limit on a page of long lines, as in memory', async () => {
    // 2-byte characters, so bytes alone would stop too soon. Each line is shown cut to read_file's
    // per-line cap (2,000 characters and a note), so it takes many of them to reach the page's limit.
    const line = 'é'.repeat(3_000);
    const text = `${Array.from({ length: 400 }, () => line).join('\n')}\n`;
    const ws = await makeWorkspace({ 'f.txt': text });
    const a = await ws.tools({ streamThreshold: 1 }).execute('read_file', { file_path: 'f.txt' });
    const b = await ws.tools().execute('read_file', { file_path: 'f.txt' });
    expect(a.ok && b.ok).toBe(true);
    expect(a.details.lastLine).toBeGreaterThan(1);
    expect(a.details.lastLine).toBeLessThan(400);
    expect(b.details.lastLine).toBe(a.details.lastLine);
    expect(shown(a)).toEqual(shown(b));
  });
});
