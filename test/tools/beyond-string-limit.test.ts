/**
 * A file larger than the longest string V8 can hold (~512 MiB): reading it whole as text throws, yet
 * read_file, edit_file, edit_lines and undo_edit work on it through the streaming path. The file is made
 * by repeating one 8 MiB block; the test is skipped (saying why) only where the disk lacks room for it and
 * its temp copy.
 */
import { constants as bufferConstants } from 'node:buffer';
import { statfsSync } from 'node:fs';
import { mkdtemp, open, readFile, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEditTools } from '../../src/tools/index.js';

const LINE = 64;
const BLOCK_LINES = 131_072; // 8 MiB of lines per write
const BLOCKS = 80; // 640 MiB in all
const SIZE = LINE * BLOCK_LINES * BLOCKS;
const NEEDED = 2.2 * SIZE; // the file, the temp copy an edit writes, some slack

function roomFor(folder: string): { ok: boolean; free: number } {
  const stats = statfsSync(folder);
  const free = Number(stats.bavail) * Number(stats.bsize);
  return { ok: free >= NEEDED, free };
}

const room = roomFor(tmpdir());
if (!room.ok) {
  console.log(
    `skipping the >600 MB streaming test: ${(room.free / 2 ** 30).toFixed(1)} GiB free in ${tmpdir()}, it needs ${(NEEDED / 2 ** 30).toFixed(1)} GiB`,
  );
}

const line = (text: string) => `${text.padEnd(LINE - 1, '.').slice(0, LINE - 1)}\n`;

describe('a file beyond the string limit', () => {
  let root = '';
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it.skipIf(!room.ok)(
    'is read, edited and restored by streaming where a whole-file read throws',
    async () => {
      root = await realpath(await mkdtemp(join(tmpdir(), 'editgate-huge-')));
      const path = join(root, 'dump.sql');
      const block = Buffer.from(
        Array.from({ length: BLOCK_LINES }, (_, i) => line(`INSERT ${i} row`)).join(''),
      );
      const last = Buffer.from(block);
      last.write(line('UNIQUE MARKER near the end'), block.length - 100 * LINE);
      const handle = await open(path, 'w');
      for (let i = 0; i < BLOCKS; i++)
        await handle.write(i === BLOCKS - 1 ? last : block, 0, block.length, i * block.length);
      await handle.close();

      expect(SIZE).toBeGreaterThan(bufferConstants.MAX_STRING_LENGTH);
      await expect(readFile(path, 'utf8')).rejects.toThrow();

      const tools = createEditTools({ root, approve: 'allow' });
      const lines = SIZE / LINE;
      const far = await tools.execute('read_file', { file_path: 'dump.sql', offset: lines - 99, limit: 1 });
      expect(far).toMatchObject({ ok: true, details: { streamed: true, lines } });
      expect(far.message).toContain('UNIQUE MARKER near the end');

      const edit = await tools.execute('edit_file', {
        file_path: 'dump.sql',
        old_string: 'UNIQUE MARKER near the end',
        new_string: 'UNIQUE MARKER, EDITED',
      });
      expect(edit).toMatchObject({ ok: true, details: { replacements: 1 } });
      const middle = lines / 2;
      const byLine = await tools.execute('edit_lines', {
        file_path: 'dump.sql',
        edits: [{ range: [middle, middle + 1], replacement: 'the middle line' }],
      });
      expect(byLine.ok).toBe(true);
      expect(byLine.details.unifiedDiff).toContain(`@@ -${middle - 3},7 +${middle - 3},7 @@`);

      const at = async (offset: number, length: number) => {
        const file = await open(path, 'r');
        const bytes = Buffer.alloc(length);
        await file.read(bytes, 0, length, offset);
        await file.close();
        return bytes.toString();
      };
      expect(await at((middle - 1) * LINE, 16)).toBe('the middle line\n');
      const shift = 16 - LINE; // the middle line got shorter
      expect(await at(SIZE - 100 * LINE + shift, 21)).toBe('UNIQUE MARKER, EDITED');

      expect((await tools.execute('undo_edit', { file_path: 'dump.sql' })).ok).toBe(true);
      expect((await tools.execute('undo_edit', { file_path: 'dump.sql' })).ok).toBe(true);
      expect(await at((middle - 1) * LINE, LINE)).toBe(line(`INSERT ${(middle - 1) % BLOCK_LINES} row`));
      expect(await at(SIZE - 100 * LINE, LINE)).toBe(line('UNIQUE MARKER near the end'));
      expect((await stat(path)).size).toBe(SIZE);
    },
    120_000,
  );
});
