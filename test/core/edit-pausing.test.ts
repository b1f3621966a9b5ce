import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyStringEdits, applyStringEditsPausing, type StringEdit } from '../../src/core/edit.js';
import { EditgateError } from '../../src/core/errors.js';

/**
 * Issue #13: a tolerant search of a large file held in memory pauses between its steps, so other work (a
 * timer, another MCP session) runs during it; its result is the sync search's, always.
 */

const setImmediatePause = () => new Promise<void>((resolve) => setImmediate(resolve));

const char = fc.constantFrom('a', 'b', ' ', '\t', '\n', '\r\n', '$', '“', '"', '\\n', '${', '\\${', '1\t');
const text = fc.array(char, { maxLength: 40 }).map((parts) => parts.join(''));
const perLine = (f: (line: string) => string) => (s: string) => s.split('\n').map(f).join('\n');
const distortion = fc.constantFrom<(s: string) => string>(
  (s) => s,
  perLine((line) => `${line}  `),
  perLine((line) => `  ${line}`),
  (s) => s.replace(/"/g, '“'),
  (s) => s.replace(/\n/g, '\\n'),
  (s) => `\n\n${s}\n\n`,
);

/** What `run` gives: its result, or the EditgateError it throws. */
async function outcome(run: () => unknown): Promise<unknown> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof EditgateError)) throw error;
    return error;
  }
}

async function both(input: string, edits: StringEdit[], matching: 'exact' | 'tolerant') {
  return {
    sync: await outcome(() => applyStringEdits(input, edits, { matching })),
    pausing: await outcome(() => applyStringEditsPausing(input, edits, { matching }, setImmediatePause)),
  };
}

const shape = (value: unknown) =>
  value instanceof EditgateError
    ? { code: value.code, message: value.message, details: value.details }
    : value;

describe('string edits that pause between search steps', () => {
  it('give the same text, tiers and errors as the sync search', async () => {
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.array(
          fc.tuple(fc.nat(), fc.nat(), distortion, text, fc.boolean(), fc.constantFrom('exact', 'tolerant')),
          { minLength: 1, maxLength: 3 },
        ),
        async (input, raw) => {
          const edits: StringEdit[] = raw.map(([a, b, distort, newText, replaceAll]) => {
            const [from, to] = [a % (input.length + 1), b % (input.length + 1)].sort((x, y) => x - y);
            return { oldText: distort(input.slice(from!, to!)), newText, replaceAll };
          });
          const matching = raw[0]![5] as 'exact' | 'tolerant';
          const { sync, pausing } = await both(input, edits, matching);
          expect(shape(pausing)).toEqual(shape(sync));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('lets a timer run during a long search (not only after it)', async () => {
    // 20,000 lines; the old text is there only with its lines' trailing blanks dropped and re-indented,
    // so the search goes through the exact step and several tolerant ones before it finds it.
    const lines = Array.from({ length: 20_000 }, (_, i) => `    line ${i} of the file;`);
    const input = `${lines.join('\n')}\n`;
    const oldText = `${lines[12_345]!.trim()}\n${lines[12_346]!.trim()}\n`;
    let finished = false;
    let firedDuringSearch: boolean | undefined;
    const timer = setTimeout(() => {
      firedDuringSearch = !finished;
    }, 0);
    const pauses: boolean[] = [];
    const result = await applyStringEditsPausing(
      input,
      [{ oldText, newText: 'changed;\n' }],
      { matching: 'tolerant' },
      async () => {
        pauses.push(true);
        await new Promise<void>((resolve) => setTimeout(resolve, 0));
      },
    );
    finished = true;
    clearTimeout(timer);
    expect(result.edits[0]!.tier).toBe('indentation');
    expect(pauses.length).toBeGreaterThanOrEqual(2);
    expect(firedDuringSearch).toBe(true);
    // The sync search cannot let it run: nothing else runs until it returns.
    let firedDuringSync: boolean | undefined;
    let syncFinished = false;
    const other = setTimeout(() => {
      firedDuringSync = !syncFinished;
    }, 0);
    applyStringEdits(input, [{ oldText, newText: 'changed;\n' }], { matching: 'tolerant' });
    syncFinished = true;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    clearTimeout(other);
    expect(firedDuringSync).toBe(false);
  });
});
