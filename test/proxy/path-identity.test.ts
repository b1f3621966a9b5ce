/**
 * Issue #26: paths were compared as bytes in one place and as names in another. The model named
 * `café/config.js` with a decomposed é (NFD); editgate asked about creating that new file while the
 * reference filesystem server wrote the existing `café` (NFC) one, undo knew nothing of it, and a deny glob
 * on `clés/**` let a write into the other form's folder through after one question. Now the guard finds the
 * name as it is on disk, and the question, the history, the check afterwards and the globs all use it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEditTools } from '../../src/tools/index.js';
import { type Answer, allowOnce, call, connectProxy, filesystemUpstream, workspace } from './helpers.js';

const CAFE_NFC = 'caf\u00e9';
const CAFE_NFD = 'cafe\u0301';

async function proxied(files: Record<string, string>, answers: Answer[], deny?: string[]) {
  const { root, state } = workspace(files);
  const connected = await connectProxy(
    {
      upstream: filesystemUpstream(root),
      roots: [root],
      stateDir: state,
      ...(deny ? { config: { deny } } : {}),
    },
    { answers },
  );
  return { ...connected, root, state };
}

describe('a path written in the other Unicode form than the name on disk', () => {
  it('the question, the write, the check afterwards and undo are all about the file on disk', async () => {
    const { client, questions, root, state } = await proxied(
      { [`${CAFE_NFC}/config.js`]: 'export const port = 80;\n' },
      [allowOnce()],
    );
    const result = await call(client, 'write_file', {
      path: join(root, CAFE_NFD, 'config.js'),
      content: 'export const port = 8080;\n',
    });
    expect(result.isError, result.text).toBe(false);
    // A change to the existing file, named as it is on disk: not the creation of a look-alike.
    expect(questions[0]).toContain(`write_file wants to change ${CAFE_NFC}/config.js (+1 -1)`);
    expect(questions[0]).toContain('-export const port = 80;');
    expect(readFileSync(join(root, CAFE_NFC, 'config.js'), 'utf8')).toBe('export const port = 8080;\n');
    // Nothing else changed (no look-alike folder), and what was written is what was shown.
    expect(result.text).not.toContain('editgate proxy:');

    const tools = createEditTools({ root, approve: 'allow', stateDir: state });
    expect(await tools.execute('undo_edit', { file_path: `${CAFE_NFC}/config.js` })).toMatchObject({
      ok: true,
    });
    expect(readFileSync(join(root, CAFE_NFC, 'config.js'), 'utf8')).toBe('export const port = 80;\n');
  });

  it('a deny glob on a folder refuses writes and reads through either form, without a question', async () => {
    const keys = 'cle\u0301s'; // on disk in NFD (as a Mac writes it); the glob below is NFC
    const { client, questions, root } = await proxied(
      { [`${keys}/id.pem`]: 'SECRET\n' },
      [allowOnce(), allowOnce()],
      ['cl\u00e9s/**'],
    );
    for (const name of ['cl\u00e9s', keys]) {
      const write = await call(client, 'write_file', { path: join(root, name, 'id.pem'), content: 'mine\n' });
      expect(write.isError).toBe(true);
      expect(write.text).toContain("denied by workspace rule 'cl\u00e9s/**'");
      const read = await call(client, 'read_text_file', { path: join(root, name, 'id.pem') });
      expect(read.isError).toBe(true);
      expect(read.text).not.toContain('SECRET');
    }
    expect(questions).toEqual([]);
    expect(readFileSync(join(root, keys, 'id.pem'), 'utf8')).toBe('SECRET\n');
  });

  it('a new folder named in either form is refused by the glob too', async () => {
    const { client, questions, root } = await proxied({}, [allowOnce()], ['cl\u00e9s/**']);
    const write = await call(client, 'write_file', { path: join(root, 'cle\u0301s.txt'), content: 'fine\n' });
    expect(write.isError).toBe(false);
    const denied = await call(client, 'create_directory', { path: join(root, 'cle\u0301s') });
    expect(denied.isError).toBe(true);
    expect(denied.text).toContain('denied by workspace rule');
    expect(questions).toHaveLength(1);
  });
});
