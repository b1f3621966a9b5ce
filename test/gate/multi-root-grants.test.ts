import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEditTools } from '../../src/tools/index.js';
import { tempFolder } from '../temp-folder.js';
import { scriptedApprover } from '../tools/workspace-fixture.js';

/** Issue #13, item 4: with several roots, `src/app.ts` names two files; a grant for one is not for the other. */
describe('"this file" grants with several roots (issue #13)', () => {
  it('a grant for A/src/app.ts does not approve B/src/app.ts, for changes and for reads', async () => {
    const base = tempFolder('editgate-roots-');
    const [a, b] = [join(base, 'A'), join(base, 'B')];
    for (const root of [a, b]) {
      await mkdir(join(root, 'src'), { recursive: true });
      await writeFile(join(root, 'src', 'app.ts'), 'const x = 1;\n');
    }
    const { approver, asked } = scriptedApprover('file', 'file', 'deny');
    const tools = createEditTools({
      root: [a, b],
      approve: approver,
      policy: { rules: [{ tool: 'read_file', action: 'ask' }] },
    });
    // Read A's file: asked, "this file".
    expect((await tools.execute('read_file', { file_path: join(a, 'src/app.ts') })).ok).toBe(true);
    const edit = (root: string) =>
      tools.execute('edit_file', { file_path: join(root, 'src/app.ts'), old_string: '1', new_string: '2' });
    expect((await edit(a)).ok).toBe(true); // asked, "this file"
    expect(asked).toHaveLength(2);
    // B's file of the same relative name: the read is asked about again (and denied), so nothing is written.
    const other = await tools.execute('read_file', { file_path: join(b, 'src/app.ts') });
    expect(other).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(asked).toHaveLength(3);
    expect(await readFile(join(b, 'src/app.ts'), 'utf8')).toBe('const x = 1;\n');
    // A's file stays granted: no question.
    await tools.execute('read_file', { file_path: join(a, 'src/app.ts') });
    expect(asked).toHaveLength(3);
    expect(tools.session.grants.files).toEqual(['src/app.ts']);
  });

  it('a change grant for A/src/app.ts does not approve a change to B/src/app.ts', async () => {
    const base = tempFolder('editgate-roots-');
    const [a, b] = [join(base, 'A'), join(base, 'B')];
    for (const root of [a, b]) {
      await mkdir(join(root, 'src'), { recursive: true });
      await writeFile(join(root, 'src', 'app.ts'), 'const x = 1;\n');
    }
    const { approver, asked } = scriptedApprover('file', { deny: 'not that one' });
    const tools = createEditTools({ root: [a, b], approve: approver });
    for (const root of [a, b]) await tools.execute('read_file', { file_path: join(root, 'src/app.ts') });
    const edit = (root: string) =>
      tools.execute('edit_file', { file_path: join(root, 'src/app.ts'), old_string: '1', new_string: '2' });
    expect((await edit(a)).ok).toBe(true);
    expect(await edit(b)).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(asked).toHaveLength(2);
    expect(await readFile(join(b, 'src/app.ts'), 'utf8')).toBe('const x = 1;\n');
  });
});
