/**
 * docs/guides/rules.md is true: its config example is loaded as editgate loads a config (trusted, and not trusted)
 * and does what the page says; its library example is run as written, against this package.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/tools/config.js';
import type { EditTools } from '../../src/tools/index.js';
import { REPO } from '../built-cli.js';
import { fakeGithubToken } from '../secret-fixtures.js';
import { tempFolder } from '../temp-folder.js';
import { makeWorkspace, readAll, scriptedApprover } from '../tools/workspace-fixture.js';
import { trustConfig } from '../trusted-config.js';

const PAGE = readFileSync(join(REPO, 'docs', 'guides', 'rules.md'), 'utf8');

function blocks(language: string): string[] {
  return [...PAGE.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map(
    (match) => match[1]!,
  );
}

const many = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

async function configured(trusted: boolean) {
  const [config] = blocks('json');
  const ws = await makeWorkspace({
    'editgate.config.json': config!,
    'small.txt': 'alpha\n',
    'big.txt': many(250),
    'package-lock.json': '{}\n',
    'src/gen/api.ts': 'export const a = 1;\n',
  });
  const stateDir = tempFolder('editgate-rules-doc-');
  if (trusted) trustConfig(join(ws.root, 'editgate.config.json'), stateDir);
  const loaded = await loadConfig(ws.root, undefined, { stateDir });
  const person = scriptedApprover(...Array(5).fill('once'));
  const tools = ws.tools({ ...loaded.options, stateDir, approve: person.approver });
  return { ws, tools, person, loaded };
}

async function write(tools: EditTools, path: string, content: string) {
  await readAll(tools, path);
  return tools.execute('write_file', { file_path: path, content });
}

describe('docs/guides/rules.md', () => {
  it('the config example: small edits pass, large deletions, deletions and generated files are asked, lock files and secrets refused', async () => {
    const { tools, person, loaded } = await configured(true);
    expect(loaded.trust?.trusted).toBe(true);
    expect(await write(tools, 'small.txt', 'ALPHA\n')).toMatchObject({
      ok: true,
      details: { decidedBy: 'policy' },
    });
    expect(person.asked).toHaveLength(0);
    expect(await write(tools, 'big.txt', 'short\n')).toMatchObject({
      ok: true,
      details: { askedBy: ['rule:large deletion'] },
    });
    expect(await write(tools, 'src/gen/api.ts', 'export const a = 2;\n')).toMatchObject({
      ok: true,
      details: { askedBy: ['rule:generated src/gen/**'] },
    });
    expect(
      await tools.execute('apply_patch', {
        patch: '*** Begin Patch\n*** Delete File: small.txt\n*** End Patch',
      }),
    ).toMatchObject({ ok: true, details: { askedBy: ['rule:deleted'] } });
    expect(person.asked).toHaveLength(3);
    expect(await write(tools, 'package-lock.json', '{"a":1}\n')).toMatchObject({
      ok: false,
      code: 'DENIED_POLICY',
    });
    const secret = await tools.execute('write_file', {
      file_path: 'k.ts',
      content: `export const k = "${fakeGithubToken()}";\n`,
    });
    expect(secret).toMatchObject({ ok: false, code: 'DENIED_POLICY' });
    expect(secret.ok || secret.message).toContain('rule:secrets');
  });

  it('not trusted: its allow rule waits for trust, its change rules apply', async () => {
    const { tools, person, loaded } = await configured(false);
    expect(loaded.trust?.trusted).toBe(false);
    expect(loaded.trust?.ignored).toEqual(['1 allow rule']);
    expect(await write(tools, 'small.txt', 'ALPHA\n')).toMatchObject({
      ok: true,
      details: { decidedBy: 'user' },
    });
    expect(person.asked).toHaveLength(1);
    expect(await write(tools, 'package-lock.json', '{"a":1}\n')).toMatchObject({
      ok: false,
      code: 'DENIED_POLICY',
    });
  });

  it('the library example runs as written', async () => {
    const [code] = blocks('ts');
    const ws = await makeWorkspace({
      'package-lock.json': '{}\n',
      'db/001.sql': 'create table a (b int);\n',
    });
    const folder = mkdtempSync(join(tmpdir(), 'editgate-rules-doc-'));
    const file = join(folder, 'example.ts');
    writeFileSync(
      file,
      `${code!.replace("from 'editgate'", `from ${JSON.stringify(join(REPO, 'src', 'index.ts'))}`).replace('process.cwd()', JSON.stringify(ws.root))}\nexport { tools };\n`,
    );
    const { tools } = (await import(/* @vite-ignore */ file)) as { tools: EditTools };
    await readAll(tools, 'package-lock.json');
    expect(
      await tools.execute('write_file', { file_path: 'package-lock.json', content: '{"a":1}\n' }),
    ).toMatchObject({
      ok: false,
      code: 'DENIED_POLICY',
    });
    await readAll(tools, 'db/001.sql');
    const migration = await tools.execute('write_file', {
      file_path: 'db/001.sql',
      content: 'drop table a;\n',
    });
    expect(migration).toMatchObject({ ok: false, code: 'DENIED_USER' });
    expect(migration.ok || migration.message).toContain('db/001.sql: changes a migration [rule:migrations]');
  });
});
