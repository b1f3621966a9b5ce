import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatBytes } from '../../src/core/format-bytes.js';
import {
  ALLOW_ALL_CONFIG,
  type Connected,
  call,
  connectStdio,
  ensureBuilt,
  MAIN,
  serverEnv,
  workspace,
} from './helpers.js';

beforeAll(ensureBuilt, 120_000);

let session: Connected | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

/** A server whose config allows every change, so calls are decided without a person. */
async function allowAll(files: Record<string, string | Buffer> = {}, extra: string[] = []) {
  const root = workspace({ 'editgate.config.json': ALLOW_ALL_CONFIG, ...files });
  session = await connectStdio([root, '--approve', 'policy', ...extra]);
  return { root, client: session.client };
}

describe('editgate mcp over stdio', () => {
  it('initializes with tools and logging, names itself and says which approval mode it chose', async () => {
    const root = workspace();
    session = await connectStdio([root]);
    const { client } = session;
    expect(client.getServerVersion()?.name).toBe('editgate');
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, logging: {} });
    const instructions = client.getInstructions() ?? '';
    expect(instructions).toContain(root);
    expect(instructions).toContain(
      'Approval: preview (auto-detected: the client does not support elicitation)',
    );
    expect(session.stderr()).toContain('approval mode preview');
  });

  it('lists the seven tools with valid input and output schemas and accurate annotations', async () => {
    const { client } = await allowAll();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'multi_edit',
      'edit_lines',
      'apply_patch',
      'undo_edit',
    ]);
    const ajv = new AjvJsonSchemaValidator();
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      // Compiling throws on an invalid schema.
      expect(() => ajv.getValidator(tool.inputSchema)).not.toThrow();
      expect(() => ajv.getValidator(tool.outputSchema!)).not.toThrow();
      expect(tool.title).toBeTruthy();
      expect(tool.annotations?.openWorldHint).toBe(false);
      const readOnly = tool.name === 'read_file';
      expect(tool.annotations?.readOnlyHint).toBe(readOnly);
      expect(tool.annotations?.destructiveHint).toBe(!readOnly);
    }
    const edit = tools.find((tool) => tool.name === 'edit_file')!;
    expect(edit.inputSchema.required).toEqual(['file_path', 'old_string', 'new_string']);
  });

  it('keeps undo history in the state folder by default, so editgate undo works after the session', async () => {
    const root = workspace({ 'editgate.config.json': ALLOW_ALL_CONFIG, 'a.txt': 'one\n' });
    const env = serverEnv();
    session = await connectStdio([root, '--approve', 'policy'], { env });
    await call(session.client, 'read_file', { file_path: 'a.txt' });
    const edit = await call(session.client, 'edit_file', {
      file_path: 'a.txt',
      old_string: 'one',
      new_string: 'two',
    });
    expect(edit.isError).toBe(false);
    await session.close();
    session = undefined;
    const undo = spawnSync(process.execPath, [MAIN, 'undo', 'a.txt', '--yes'], {
      encoding: 'utf8',
      env,
      cwd: root,
    });
    expect(undo.status, undo.stderr).toBe(0);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('reads, edits and undoes a file, with structuredContent beside the text', async () => {
    const { root, client } = await allowAll({ 'src/app.ts': 'const a = 1;\nconst b = 2;\n' });
    const read = await call(client, 'read_file', { file_path: 'src/app.ts' });
    expect(read.isError).toBe(false);
    expect(read.text).toContain('     1\tconst a = 1;');
    expect(read.structured).toMatchObject({
      ok: true,
      details: { path: 'src/app.ts', lines: 2, complete: true },
    });
    expect(read.structured?.message).toBe(read.text);

    const edit = await call(client, 'edit_file', {
      file_path: 'src/app.ts',
      old_string: 'const b = 2;',
      new_string: 'const b = 3;',
    });
    expect(edit.isError).toBe(false);
    expect(edit.structured).toMatchObject({
      ok: true,
      details: {
        path: 'src/app.ts',
        kind: 'modify',
        added: 1,
        removed: 1,
        written: true,
        decidedBy: 'policy',
      },
    });
    expect(readFileSync(join(root, 'src/app.ts'), 'utf8')).toBe('const a = 1;\nconst b = 3;\n');

    const undo = await call(client, 'undo_edit', { file_path: 'src/app.ts' });
    expect(undo.isError).toBe(false);
    expect(undo.text).toContain('Undid the last change to src/app.ts');
    expect(readFileSync(join(root, 'src/app.ts'), 'utf8')).toBe('const a = 1;\nconst b = 2;\n');
  });

  it('keeps CRLF line endings, accepts aliases, and creates files', async () => {
    const { root, client } = await allowAll({ 'win.txt': 'one\r\ntwo\r\n' });
    await call(client, 'read_file', { path: 'win.txt' });
    const edit = await call(client, 'edit_file', {
      filePath: 'win.txt',
      oldString: 'two',
      newString: 'TWO\nthree',
    });
    expect(edit.isError).toBe(false);
    expect(readFileSync(join(root, 'win.txt'), 'utf8')).toBe('one\r\nTWO\r\nthree\r\n');
    const created = await call(client, 'write_file', { file_path: 'new/file.md', content: '# hi\n' });
    expect(created.structured?.details).toMatchObject({ kind: 'create', written: true });
    expect(readFileSync(join(root, 'new/file.md'), 'utf8')).toBe('# hi\n');
  });

  describe('every failure is a tool result with the editgate code', () => {
    async function failure(client: Connected['client'], name: string, args: Record<string, unknown>) {
      const outcome = await call(client, name, args);
      expect(outcome.isError).toBe(true);
      expect(outcome.structured?.ok).toBe(false);
      expect(outcome.text).toBe(outcome.structured?.message);
      return outcome;
    }

    it('unknown tool, bad arguments, oversized arguments', async () => {
      const { client } = await allowAll({ 'a.txt': 'x\n' }, ['--max-input', '64kb']);
      expect((await failure(client, 'delete_everything', {})).structured?.code).toBe('UNKNOWN_TOOL');
      const bad = await failure(client, 'edit_file', { file_path: 'a.txt', old_string: 5, new_string: [] });
      expect(bad.structured?.code).toBe('INVALID_INPUT');
      expect(bad.text).toContain('old_string');
      expect((await failure(client, 'read_file', {})).structured?.code).toBe('INVALID_INPUT');
      const huge = await failure(client, 'write_file', {
        file_path: 'big.txt',
        content: 'x'.repeat(200_000),
      });
      expect(huge.structured?.code).toBe('TOO_LARGE');
      expect(huge.structured?.details).toMatchObject({ limit: 65_536 });
      // Sizes read as everywhere else in editgate (core's formatBytes), not in a unit of the server's own.
      expect(huge.text).toContain(`more than this server accepts (${formatBytes(65_536)})`);
      // The session is still healthy.
      expect((await call(client, 'read_file', { file_path: 'a.txt' })).isError).toBe(false);
    });

    it('paths outside the root', async () => {
      const { client } = await allowAll();
      for (const file_path of ['../outside.txt', '/etc/passwd', 'sub/../../x', '.git/config']) {
        expect((await failure(client, 'read_file', { file_path })).structured?.code).toBe('OUTSIDE_ROOT');
      }
      const write = await failure(client, 'write_file', { file_path: '../escape.txt', content: 'x' });
      expect(write.structured?.code).toBe('OUTSIDE_ROOT');
    });

    it('file errors: missing, not read, binary', async () => {
      const { client } = await allowAll({
        'a.txt': 'alpha\nbeta\n',
        'bin.dat': Buffer.from([0, 1, 2, 3, 0, 255]),
      });
      expect((await failure(client, 'read_file', { file_path: 'nope.txt' })).structured?.code).toBe(
        'FILE_NOT_FOUND',
      );
      const notRead = await failure(client, 'edit_file', {
        file_path: 'a.txt',
        old_string: 'beta',
        new_string: 'b',
      });
      expect(notRead.structured?.code).toBe('NOT_READ');
      expect((await failure(client, 'read_file', { file_path: 'bin.dat' })).structured?.code).toBe('BINARY');
      expect((await failure(client, 'undo_edit', { file_path: 'a.txt' })).structured?.code).toBe(
        'NOTHING_TO_UNDO',
      );
    });

    it('match errors: not found, ambiguous, no change, stale, bad range', async () => {
      const { root, client } = await allowAll({ 'a.txt': 'same\nsame\nother\n' });
      await call(client, 'read_file', { file_path: 'a.txt' });
      const edit = (old_string: string, new_string: string) =>
        failure(client, 'edit_file', { file_path: 'a.txt', old_string, new_string });
      expect((await edit('missing', 'x')).structured?.code).toBe('NOT_FOUND');
      const ambiguous = await edit('same', 'x');
      expect(ambiguous.structured?.code).toBe('AMBIGUOUS');
      expect(ambiguous.text).toMatch(/2/);
      expect((await edit('other', 'other')).structured?.code).toBe('NO_CHANGE');
      const lines = await failure(client, 'edit_lines', {
        file_path: 'a.txt',
        edits: [{ range: [3, 1], replacement: 'x' }],
      });
      expect(lines.structured?.code).toBe('INVALID_RANGE');
      writeFileSync(join(root, 'a.txt'), 'changed behind our back\n');
      expect((await edit('other', 'x')).structured?.code).toBe('STALE');
      expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('changed behind our back\n');
    });

    it('policy and hook denials', async () => {
      const config = JSON.stringify({
        policy: {
          rules: [{ action: 'allow' }, { path: 'locked/**', action: 'deny' }],
        },
        hooks: {
          beforeChange: [{ command: `node -e "process.stderr.write('no TODOs please'); process.exit(1)"` }],
        },
      });
      const root = workspace({ 'editgate.config.json': config, 'locked/a.txt': 'a\n' });
      session = await connectStdio([root, '--approve', 'policy']);
      const { client } = session;
      const hook = await failure(client, 'write_file', { file_path: 'todo.txt', content: 'TODO\n' });
      expect(hook.structured?.code).toBe('DENIED_HOOK');
      expect(hook.text).toContain('no TODOs please');
      const policy = await failure(client, 'read_file', { file_path: 'locked/a.txt' });
      expect(policy.structured?.code).toBe('DENIED_POLICY');
    });

    it('--approve policy without an allow rule refuses changes as no one to ask, not as a user', async () => {
      const root = workspace({ 'a.txt': 'a\n' });
      session = await connectStdio([root, '--approve', 'policy']);
      const refused = await failure(session.client, 'write_file', { file_path: 'b.txt', content: 'b\n' });
      expect(refused.structured?.code).toBe('DENIED_NO_APPROVER');
      expect(refused.text).toContain('write_file on b.txt needs approval, and no one could be asked');
      expect(refused.text).toContain('no policy rule allows it, and this server runs with --approve policy');
      expect(refused.text).toContain('editgate trust');
      expect(refused.text).not.toMatch(/the user denied/i);
      expect(session.stderr()).toContain('no "allow" rule');
    });

    it('--approve deny offers only read_file and refuses the rest', async () => {
      const root = workspace({ 'a.txt': 'a\n' });
      session = await connectStdio([root, '--approve', 'deny']);
      const { tools } = await session.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['read_file']);
      expect(session.client.getInstructions()).toContain('read-only');
      expect((await call(session.client, 'read_file', { file_path: 'a.txt' })).isError).toBe(false);
      const refused = await failure(session.client, 'write_file', { file_path: 'a.txt', content: 'b' });
      expect(refused.structured?.code).toBe('DENIED_POLICY');
      expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a\n');
    });
  });

  it('sends log lines as MCP logging notifications', async () => {
    const root = workspace({ 'editgate.config.json': ALLOW_ALL_CONFIG, 'a.txt': 'a\n' });
    const messages: string[] = [];
    session = await connectStdio([root, '--approve', 'policy'], {
      setup: (client) =>
        client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
          messages.push(String(notification.params.data));
        }),
    });
    await call(session.client, 'read_file', { file_path: 'a.txt' });
    await call(session.client, 'write_file', { file_path: 'c.txt', content: 'c\n' });
    await expect.poll(() => messages.join('\n')).toContain('write_file c.txt +1 -0: written');
    // Each line names the call's paths as the tool describes them (#27): a patch's every file, a move's
    // both names, and the path of a call refused for its input.
    await call(session.client, 'apply_patch', {
      patch:
        '*** Begin Patch\n*** Update File: c.txt\n*** Move to: d.txt\n*** Add File: e.txt\n+e\n*** End Patch\n',
    });
    await call(session.client, 'edit_file', { file_path: 'a.txt', old_string: 'a' });
    await expect.poll(() => messages.join('\n')).toContain('apply_patch c.txt, d.txt, e.txt +2 -1: written');
    await expect.poll(() => messages.join('\n')).toContain('edit_file: INVALID_INPUT on a.txt');
  });

  it('refuses bad command lines and bad configs with exit code 2', async () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [MAIN, 'mcp', ...args], { encoding: 'utf8', env: serverEnv() });
    expect(run('--help').stdout).toContain('--approve MODE');
    expect(run('--approve', 'maybe').status).toBe(2);
    expect(run('/no/such/folder').status).toBe(2);
    const root = workspace({ 'editgate.config.json': '{"policy": 3}' });
    const bad = run(root);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('editgate.config.json');
  });
});
