import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeWorkspace } from './workspace-fixture.js';

async function snapshotTree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (folder: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile())
        out.set(
          path,
          createHash('sha256')
            .update(await readFile(path))
            .digest('hex'),
        );
    }
  };
  await walk(dir);
  return out;
}

const pathArb = fc.oneof(
  fc.constantFrom(
    'a.txt',
    'b.txt',
    'dir/c.txt',
    'new.txt',
    '../outside.txt',
    '/etc/passwd',
    '',
    'dir',
    '.git/config',
  ),
  fc.string({ maxLength: 12 }),
);
const textArb = fc.oneof(
  fc.constantFrom('', 'alpha', 'beta\n', 'line 1\n', '\r\n', 'alpha\nbeta'),
  fc.string({ maxLength: 20 }),
);
const valueArb = fc.oneof(
  textArb,
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
);

const callArb = fc.oneof(
  fc.record({
    name: fc.constant('read_file'),
    input: fc.record({ file_path: pathArb }, { requiredKeys: [] }),
  }),
  fc.record({
    name: fc.constant('edit_file'),
    input: fc.record(
      { file_path: pathArb, old_string: textArb, new_string: textArb, replace_all: fc.boolean() },
      { requiredKeys: [] },
    ),
  }),
  fc.record({ name: fc.constant('write_file'), input: fc.record({ file_path: pathArb, content: textArb }) }),
  fc.record({
    name: fc.constant('multi_edit'),
    input: fc.record({
      file_path: pathArb,
      edits: fc.array(fc.record({ old_string: textArb, new_string: textArb }), { maxLength: 3 }),
    }),
  }),
  fc.record({
    name: fc.constant('edit_lines'),
    input: fc.record({
      file_path: pathArb,
      edits: fc.array(
        fc.record({
          range: fc.tuple(fc.integer({ min: -1, max: 6 }), fc.integer({ min: -1, max: 6 })),
          replacement: textArb,
        }),
        { maxLength: 3 },
      ),
    }),
  }),
  fc.record({ name: fc.constant('undo_edit'), input: fc.record({ file_path: pathArb }) }),
  fc.record({
    name: fc.string({ maxLength: 10 }),
    input: fc.dictionary(fc.string({ maxLength: 8 }), valueArb),
  }),
);

describe('fuzzed tool calls', () => {
  // 150 runs, however long they take: a loaded machine once needed more than the default 30 s.
  it('never throw, never touch anything outside the root, and a failure leaves every file as it was', {
    timeout: 180_000,
  }, async () => {
    const outer = await makeWorkspace({ 'outside.txt': 'precious\n' });
    const ws = await makeWorkspace({
      'a.txt': 'alpha\nbeta\n',
      'b.txt': 'line 1\r\nline 2\r\n',
      'dir/c.txt': 'gamma',
    });
    // The workspace lives next to outer's files; '../outside.txt' style paths must never reach them.
    const outsideBefore = await snapshotTree(outer.root);
    const tools = ws.tools({ approve: 'allow' });
    await fc.assert(
      fc.asyncProperty(fc.array(callArb, { minLength: 1, maxLength: 8 }), async (calls) => {
        for (const call of calls) {
          const before = await snapshotTree(ws.root);
          const result = await tools.execute(call.name, call.input);
          expect(typeof result.ok).toBe('boolean');
          expect(typeof result.message).toBe('string');
          if (!result.ok) {
            expect(result.code).toMatch(/^[A-Z_]+$/);
            expect(await snapshotTree(ws.root)).toEqual(before);
          }
        }
        expect(await snapshotTree(outer.root)).toEqual(outsideBefore);
        expect((await stat('/etc/passwd')).isFile()).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
