/**
 * Issue #27, item 5: each tool's success carries details of its own type (details.ts), which front ends
 * read typed: read_file's page, a change's counts over every file of a set.
 */
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changeDetailsOf, changedLines, readDetails } from '../../src/tools/details.js';
import { createEditTools } from '../../src/tools/index.js';

const made: string[] = [];
afterEach(async () => {
  while (made.length > 0) await rm(made.pop()!, { recursive: true, force: true });
});

async function tools(files: Record<string, string>) {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'editgate-details-')));
  made.push(root);
  for (const [name, text] of Object.entries(files)) await writeFile(join(root, name), text);
  return createEditTools({ root, approve: 'allow', requireReadBeforeEdit: false });
}

describe("a tool's typed details", () => {
  it("read_file's: the file's lines and the page shown", async () => {
    const set = await tools({ 'a.txt': 'one\ntwo\nthree\n' });
    const result = await set.execute('read_file', { file_path: 'a.txt', offset: 2, limit: 1 });
    if (!result.ok) throw new Error(result.message);
    expect(readDetails(result)).toMatchObject({
      path: 'a.txt',
      lines: 3,
      firstLine: 2,
      lastLine: 2,
      complete: false,
    });
    expect(changeDetailsOf('read_file', result)).toBeUndefined();
  });

  it("a change set's: every file, and its lines added up over all of them", async () => {
    const set = await tools({ 'c.txt': 'c\n' });
    const result = await set.execute('apply_patch', {
      patch:
        '*** Begin Patch\n*** Update File: c.txt\n*** Move to: d.txt\n*** Add File: e.txt\n+e\n+f\n*** End Patch\n',
    });
    if (!result.ok) throw new Error(result.message);
    const details = changeDetailsOf('apply_patch', result);
    expect(details?.files?.map((file) => `${file.kind} ${file.path}`)).toEqual([
      'delete c.txt',
      'create d.txt',
      'create e.txt',
    ]);
    expect(details && changedLines(details)).toEqual({ added: 3, removed: 1 });
    expect(details?.written).toBe(true);
  });

  it('a single change: its own counts; a name no tool has gives none', async () => {
    const set = await tools({ 'a.txt': 'x\n' });
    const result = await set.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'x',
      new_string: 'y\nz',
    });
    if (!result.ok) throw new Error(result.message);
    const details = changeDetailsOf('edit_file', result);
    expect(details && changedLines(details)).toEqual({ added: 2, removed: 1 });
    expect(details).toMatchObject({ kind: 'modify', decidedBy: 'auto', written: true });
    expect(changeDetailsOf('rm_rf', result)).toBeUndefined();
    expect(changeDetailsOf('__proto__', result)).toBeUndefined();
  });
});
