import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALLOW_ALL_CONFIG, type Connected, call, connectStdio, ensureBuilt, workspace } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

let session: Connected | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

/**
 * The file of issue #28 that Claude Code cut (41 KB, 975 lines): each line unique, so an edit names one place.
 * Claude Code keeps about 45,000 characters of a result and Gemini CLI the first 8,000 and last 32,000 of
 * anything over 40,000, so one read of it whole would be "read" without having been seen.
 */
const LINES = 975;
const LONG_FILE = Array.from(
  { length: LINES },
  (_, i) => `const value${String(i + 1).padStart(4, '0')} = compute('row ${i + 1}', ${i * 7});\n`,
).join('');

async function serve(args: string[] = []) {
  const root = workspace({ 'long.ts': LONG_FILE, 'editgate.config.json': ALLOW_ALL_CONFIG });
  session = await connectStdio([root, '--approve', 'policy', ...args]);
  return { root, client: session.client };
}

describe('read_file pages below what MCP clients keep of a result (#28)', () => {
  it('the test file is the size the issue measured', () => {
    expect(LONG_FILE.length).toBeGreaterThan(40_000);
    expect(LONG_FILE.length).toBeLessThan(43_000);
  });

  it('a first read shows about 25,000 characters, says it is partial, and names the next offset', async () => {
    const { client } = await serve();
    const page = await call(client, 'read_file', { file_path: 'long.ts' });
    expect(page.isError).toBe(false);
    expect(page.text.length).toBeLessThanOrEqual(25_200);
    expect(page.text.length).toBeGreaterThan(24_000);
    const last = page.structured?.details.lastLine as number;
    expect(last).toBeLessThan(LINES);
    expect(page.structured?.details).toMatchObject({ firstLine: 1, complete: false, lines: LINES });
    expect(page.text).toContain(`Next: read_file with offset=${last + 1}.`);
  });

  it('an edit on lines past the first page is refused until the page holding them is read', async () => {
    const { root, client } = await serve();
    const first = await call(client, 'read_file', { file_path: 'long.ts' });
    const last = first.structured?.details.lastLine as number;
    const target = "const value0900 = compute('row 900', 6293);";
    expect(last).toBeLessThan(900);

    const unseen = await call(client, 'edit_file', {
      file_path: 'long.ts',
      old_string: target,
      new_string: 'const value0900 = 0;',
    });
    expect(unseen.isError).toBe(true);
    expect(unseen.structured?.code).toBe('PARTIAL_READ');
    expect(readFileSync(join(root, 'long.ts'), 'utf8')).toBe(LONG_FILE);

    // An edit inside the page shown is allowed: what was returned counts as read.
    const seen = await call(client, 'edit_file', {
      file_path: 'long.ts',
      old_string: "const value0002 = compute('row 2', 7);",
      new_string: 'const value0002 = 2;',
    });
    expect(seen.isError).toBe(false);

    // Page on until line 900 has been shown; then the edit goes through.
    let offset = last + 1;
    let shown = last;
    while (shown < 900) {
      const page = await call(client, 'read_file', { file_path: 'long.ts', offset });
      expect(page.text.length).toBeLessThanOrEqual(25_200);
      shown = page.structured?.details.lastLine as number;
      offset = shown + 1;
    }
    const edited = await call(client, 'edit_file', {
      file_path: 'long.ts',
      old_string: target,
      new_string: 'const value0900 = 0;',
    });
    expect(edited.isError).toBe(false);
    expect(readFileSync(join(root, 'long.ts'), 'utf8')).toBe(
      LONG_FILE.replace("const value0002 = compute('row 2', 7);", 'const value0002 = 2;').replace(
        target,
        'const value0900 = 0;',
      ),
    );
  });

  it('--read-page raises the page size for a client that keeps more', async () => {
    const { client } = await serve(['--read-page', '100000']);
    const whole = await call(client, 'read_file', { file_path: 'long.ts' });
    expect(whole.structured?.details).toMatchObject({ lastLine: LINES, complete: true });
  });

  it('--read-page refuses a size too small to page with', async () => {
    await expect(serve(['--read-page', '10'])).rejects.toThrow();
  });
});
