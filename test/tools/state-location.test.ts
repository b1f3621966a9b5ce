import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEditTools } from '../../src/tools/index.js';
import { tempFolder } from '../temp-folder.js';
import { makeWorkspace } from './workspace-fixture.js';

/** Issue #13, item 4: the state folder and the audit log are the user's, and history files are data. */
describe('state folder and audit log (issue #13)', () => {
  it('refuses a stateDir or an auditLog inside a root, also through a link into it', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'a\n' });
    const outside = tempFolder('editgate-outside-');
    symlinkSync(ws.root, join(outside, 'link-to-root'));
    for (const place of [
      ws.path('.editgate'),
      ws.path('deep/not/made/yet'),
      join(outside, 'link-to-root', 'state'),
    ]) {
      expect(() => createEditTools({ root: ws.root, approve: 'allow', stateDir: place })).toThrow(
        /stateDir .* is inside/,
      );
      expect(() =>
        createEditTools({ root: ws.root, approve: 'allow', auditLog: join(place, 'audit.jsonl') }),
      ).toThrow(/auditLog .* is inside/);
    }
    // A root inside the state folder is refused too (issue #26): writing the root writes editgate's files.
    const state = await mkdtemp(join(tmpdir(), 'editgate-state-'));
    mkdirSync(join(state, 'project'));
    expect(() =>
      createEditTools({ root: join(state, 'project'), approve: 'allow', stateDir: state }),
    ).toThrow(/The workspace root .*project is inside the stateDir/);
    // Outside, both are fine.
    expect(() =>
      createEditTools({
        root: ws.root,
        approve: 'allow',
        stateDir: join(outside, 'state'),
        auditLog: join(outside, 'a.jsonl'),
      }),
    ).not.toThrow();
  });

  it('ignores a history entry whose patch points outside the state folder: undo neither reads nor removes it', async () => {
    const ws = await makeWorkspace();
    const state = tempFolder('editgate-state-');
    const outside = tempFolder('editgate-outside-');
    const secret = join(outside, 'secret.txt');
    writeFileSync(secret, 'do not touch\n');
    const first = createEditTools({ root: ws.root, approve: 'allow', stateDir: state });
    expect(await first.execute('write_file', { file_path: 'b.txt', content: 'new\n' })).toMatchObject({
      ok: true,
    });
    // Plant: the entry of the created file now has a "patch", the secret (undo removes an entry's patch).
    const folder = join(state, 'history');
    const indexFile = join(folder, readdirSync(folder).find((name) => name.endsWith('.json'))!);
    // The index is a log: a header line, then a line per change ({"add": entry}).
    const [header, added] = readFileSync(indexFile, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(added.add.existed).toBe(false);
    added.add.patch = secret;
    writeFileSync(indexFile, `${JSON.stringify(header)}\n${JSON.stringify(added)}\n`);

    const later = createEditTools({ root: ws.root, approve: 'allow', stateDir: state });
    const undo = await later.execute('undo_edit', { file_path: 'b.txt' });
    expect(undo.ok).toBe(false);
    expect(existsSync(secret)).toBe(true);
    expect(readFileSync(secret, 'utf8')).toBe('do not touch\n');
    expect(await ws.text('b.txt')).toBe('new\n');
  });
});
