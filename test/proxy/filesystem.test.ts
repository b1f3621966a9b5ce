/**
 * The reference filesystem server (the pinned @modelcontextprotocol/server-filesystem) behind the proxy,
 * run as a real process on a temp folder, driven by a real SDK client whose elicitation answers are
 * scripted: what the person sees, what reaches the disk, and what the model is told.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILESYSTEM_ADAPTER, type ServerAdapter } from '../../src/proxy/filesystem-adapter.js';
import { applyUnifiedPatch, parseUnifiedPatch } from '../../src/proxy/unified-patch.js';
import { createEditTools } from '../../src/tools/index.js';
import { answeredAtOnce } from '../instant-answer.js';
import {
  type Answer,
  allowOnce,
  call,
  connectProxy,
  deny,
  filesystemUpstream,
  workspace,
} from './helpers.js';

async function proxied(
  files: Record<string, string | Buffer>,
  answers: Answer[] = [],
  options: {
    adapters?: ServerAdapter[];
    config?: (root: string) => Parameters<typeof connectProxy>[0]['config'];
  } = {},
) {
  const { root, state } = workspace(files);
  const connected = await connectProxy(
    {
      upstream: filesystemUpstream(root),
      roots: [root],
      stateDir: state,
      ...(options.adapters ? { adapters: options.adapters } : {}),
      ...(options.config ? { config: options.config(root) } : {}),
    },
    { answers },
  );
  return { ...connected, root, state, path: (name: string) => join(root, name) };
}

/** The diff in a question: from its `--- ` line on. */
function diffIn(question: string): string {
  const at = question.indexOf('\n--- ');
  expect(at, question).toBeGreaterThan(-1);
  return question.slice(at + 1);
}

describe('write_file through the proxy', () => {
  it('denied: the file is left byte for byte, and the model sees the reason', async () => {
    const before = Buffer.from('line one\r\nline two\r\n\u00e9\r\n', 'utf8');
    const { client, questions, path } = await proxied({ 'notes.txt': before }, [
      deny('not in this file, please'),
    ]);
    const result = await call(client, 'write_file', { path: path('notes.txt'), content: 'replaced\n' });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('not in this file, please');
    expect(result.text).toContain('DENIED_USER');
    expect(readFileSync(path('notes.txt')).equals(before)).toBe(true);
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain('secure-filesystem-server › write_file wants to change notes.txt (+1 -3)');
  });

  it('approved: the file is exactly the diff that was shown, and editgate undo puts the old one back', async () => {
    const old = 'alpha\nbeta\ngamma\n';
    const { client, questions, path, root, state } = await proxied({ 'a.txt': old }, [allowOnce()]);
    const content = 'alpha\nBETA\ngamma\ndelta\n';
    const result = await call(client, 'write_file', { path: path('a.txt'), content });
    expect(result).toMatchObject({ isError: false, text: `Successfully wrote to ${path('a.txt')}` });
    expect(readFileSync(path('a.txt'), 'utf8')).toBe(content);
    const question = questions[0]!;
    expect(question).toContain(
      'What it writes is known from editgate’s built-in adapter for the reference filesystem server.',
    );
    expect(applyUnifiedPatch(old, parseUnifiedPatch(diffIn(question)))).toBe(content);

    // What `editgate undo a.txt` does: the undo_edit tool over the same state folder.
    const tools = createEditTools({ root, approve: 'allow', stateDir: state });
    expect(await tools.execute('undo_edit', { file_path: 'a.txt' })).toMatchObject({ ok: true });
    expect(readFileSync(path('a.txt'), 'utf8')).toBe(old);
  });

  it('a new file is shown whole; undo removes it', async () => {
    const { client, questions, path, root, state } = await proxied({}, [allowOnce()]);
    await call(client, 'write_file', { path: path('new.md'), content: '# Title\n' });
    expect(questions[0]).toContain('write_file wants to create new.md (+1 -0)');
    expect(questions[0]).toContain('+# Title');
    const tools = createEditTools({ root, approve: 'allow', stateDir: state });
    expect(await tools.execute('undo_edit', { file_path: 'new.md' })).toMatchObject({ ok: true });
    expect(existsSync(path('new.md'))).toBe(false);
  });

  it('a file outside the roots or under a deny glob is refused without a question', async () => {
    const { client, questions, root } = await proxied({ '.git/config': '[core]\n' });
    const denied = await call(client, 'write_file', { path: join(root, '.git', 'config'), content: 'x' });
    expect(denied.isError).toBe(true);
    expect(denied.text).toContain('OUTSIDE_ROOT');
    expect(denied.text).toContain("denied by workspace rule '**/.git/**'");
    expect(readFileSync(join(root, '.git', 'config'), 'utf8')).toBe('[core]\n');
    const outside = await call(client, 'write_file', { path: join(root, '..', 'escape.txt'), content: 'x' });
    expect(outside.isError).toBe(true);
    expect(outside.text).toContain('OUTSIDE_ROOT');
    expect(existsSync(join(root, '..', 'escape.txt'))).toBe(false);
    expect(questions).toEqual([]);
  });

  it('policy rules, hooks and the audit log apply as to editgate’s own tools', async () => {
    const { client, questions, path, root } = await proxied({ 'src/a.ts': 'a\n', 'docs/b.md': 'b\n' }, [], {
      config: (folder) => ({
        policy: {
          rules: [
            { path: 'src/**', action: 'allow' },
            { tool: 'write_file', path: 'docs/**', action: 'deny' },
          ],
        },
        auditLog: join(folder, '..', 'audit.jsonl'),
        hooks: {
          beforeChange: (proposal) =>
            proposal.texts?.after.includes('TODO') ? { deny: 'no TODOs in committed code' } : undefined,
        },
      }),
    });
    const allowed = await call(client, 'write_file', { path: path('src/a.ts'), content: 'A\n' });
    expect(allowed.isError).toBe(false);
    expect(readFileSync(path('src/a.ts'), 'utf8')).toBe('A\n');
    const denied = await call(client, 'write_file', { path: path('docs/b.md'), content: 'B\n' });
    expect(denied.text).toContain('DENIED_POLICY');
    const hooked = await call(client, 'write_file', { path: path('src/a.ts'), content: 'TODO\n' });
    expect(hooked.text).toContain('DENIED_HOOK');
    expect(hooked.text).toContain('no TODOs in committed code');
    expect(readFileSync(path('src/a.ts'), 'utf8')).toBe('A\n');
    expect(readFileSync(path('docs/b.md'), 'utf8')).toBe('b\n');
    expect(questions).toEqual([]);
    const audit = readFileSync(join(root, '..', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { path: string; decision: string; decidedBy: string });
    expect(audit.map(({ path: p, decision, decidedBy }) => [p, decision, decidedBy])).toEqual([
      ['src/a.ts', 'policy', 'policy'],
      ['docs/b.md', 'deny', 'policy'],
      ['src/a.ts', 'deny', 'hook'],
    ]);
  });
});

describe('edit_file through the proxy', () => {
  it('shows the server’s own preview (its dryRun), whitespace-loose matching and all, and writes exactly that', async () => {
    const old = 'function f() {\n    if (x) {\n        return 1;\n    }\n}\n';
    const { client, questions, path } = await proxied({ 'f.js': old }, [allowOnce()]);
    // The old text's indentation differs from the file's: a plain replacement finds nothing, the server does.
    const result = await call(client, 'edit_file', {
      path: path('f.js'),
      edits: [{ oldText: 'if (x) {\n  return 1;\n}', newText: 'if (x) {\n  return 2;\n}' }],
    });
    expect(result.isError).toBe(false);
    const written = readFileSync(path('f.js'), 'utf8');
    // The server's loose match re-indents the new text its own way (here, wrongly): what a plain
    // replacement would predict is not what it writes. The person saw exactly this before saying yes.
    expect(written).toBe('function f() {\n    if (x) {\n    return 2;\n}\n}\n');
    expect(questions[0]).toContain("(the server's own preview, its dryRun)");
    expect(applyUnifiedPatch(old, parseUnifiedPatch(diffIn(questions[0]!)))).toBe(written);
  });

  it('a CRLF file: the diff shows the server turning every line ending into LF', async () => {
    const { client, questions, path } = await proxied({ 'w.txt': 'one\r\ntwo\r\n' }, [deny()]);
    await call(client, 'edit_file', { path: path('w.txt'), edits: [{ oldText: 'two', newText: 'TWO' }] });
    expect(questions[0]).toContain('(+2 -2)');
    expect(questions[0]).toContain(
      "The server turns the file's CRLF line endings into LF (the diff marks CR as ␍).",
    );
    expect(questions[0]).toContain('-one␍\n-two␍\n+one\n+TWO');
    expect(readFileSync(path('w.txt'), 'utf8')).toBe('one\r\ntwo\r\n');
  });

  it("the model's own dryRun writes nothing and is not asked about; a failing edit is the server's error", async () => {
    const { client, questions, path } = await proxied({ 'a.txt': 'hello\n' });
    const preview = await call(client, 'edit_file', {
      path: path('a.txt'),
      edits: [{ oldText: 'hello', newText: 'bye' }],
      dryRun: true,
    });
    expect(preview.text).toContain('-hello');
    const missing = await call(client, 'edit_file', {
      path: path('a.txt'),
      edits: [{ oldText: 'absent', newText: 'x' }],
    });
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain('Could not find exact match');
    expect(questions).toEqual([]);
    expect(readFileSync(path('a.txt'), 'utf8')).toBe('hello\n');
  });
});

describe('move_file and create_directory get a card', () => {
  it('with the tool, the server and the arguments; "allow this tool for the session" stops the questions', async () => {
    const { client, questions, path } = await proxied({ 'a.txt': 'a', 'b.txt': 'b' }, [
      { action: 'accept', content: { decision: 'Allow move_file for the session' } },
    ]);
    const first = await call(client, 'move_file', { source: path('a.txt'), destination: path('a2.txt') });
    expect(first.isError).toBe(false);
    expect(questions[0]).toContain('secure-filesystem-server wants to run move_file (Move File).');
    expect(questions[0]).toContain(`  source: ${JSON.stringify(path('a.txt'))}`);
    expect(questions[0]).toContain(`  destination: ${JSON.stringify(path('a2.txt'))}`);
    await call(client, 'move_file', { source: path('b.txt'), destination: path('b2.txt') });
    expect(questions).toHaveLength(1);
    expect(existsSync(path('a2.txt')) && existsSync(path('b2.txt'))).toBe(true);
  });

  it('denied: nothing moves; a destination under a deny glob is refused unasked', async () => {
    const { client, questions, path } = await proxied({ 'a.txt': 'a' }, [deny('keep it there')]);
    const denied = await call(client, 'move_file', { source: path('a.txt'), destination: path('z.txt') });
    expect(denied).toMatchObject({ isError: true });
    expect(denied.text).toContain('keep it there');
    const hidden = await call(client, 'move_file', {
      source: path('a.txt'),
      destination: path('.git/a.txt'),
    });
    expect(hidden.text).toContain('OUTSIDE_ROOT');
    expect(questions).toHaveLength(1);
    expect(existsSync(path('a.txt'))).toBe(true);
  });

  it('create_directory too, and a card offers no per-file grant', async () => {
    const { client, questions, offered, path } = await proxied({ 'a.txt': 'a\n' }, [allowOnce(), deny()]);
    await call(client, 'create_directory', { path: path('sub/dir') });
    expect(existsSync(path('sub/dir'))).toBe(true);
    expect(questions[0]).toContain('wants to run create_directory');
    expect(offered[0]).toEqual(['Allow once', 'Allow create_directory for the session', 'Deny']);
    // A diff's question, for comparison, offers the file for the session.
    await call(client, 'write_file', { path: path('a.txt'), content: 'b\n' });
    expect(offered[1]).toContain('Allow this file for the session');
  });

  it('policy rules apply to a card: a deny rule refuses it unasked, an allow rule lets it through', async () => {
    const { client, questions, path, root } = await proxied({ 'locked/a.txt': 'a', 'b.txt': 'b' }, [], {
      config: (folder) => ({
        policy: {
          rules: [
            { tool: 'move_file', path: 'locked/**', action: 'deny' },
            { tool: 'create_directory', action: 'allow' },
          ],
        },
        auditLog: join(folder, '..', 'audit.jsonl'),
      }),
    });
    const denied = await call(client, 'move_file', {
      source: path('locked/a.txt'),
      destination: path('a.txt'),
    });
    expect(denied).toMatchObject({ isError: true });
    expect(denied.text).toContain('DENIED_POLICY');
    expect(denied.text).toContain('locked/a.txt');
    expect(existsSync(path('locked/a.txt'))).toBe(true);
    expect((await call(client, 'create_directory', { path: path('made') })).isError).toBe(false);
    expect(existsSync(path('made'))).toBe(true);
    expect(questions).toEqual([]);
    const audit = readFileSync(join(root, '..', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { tool: string; path: string; decision: string; decidedBy: string });
    expect(audit.map(({ tool, path: p, decision, decidedBy }) => [tool, p, decision, decidedBy])).toEqual([
      ['move_file', 'locked/a.txt, a.txt', 'deny', 'policy'],
      ['create_directory', 'made', 'policy', 'policy'],
    ]);
  });
});

describe('a changed schema switches the adapter off', () => {
  const changed = (tool: string): ServerAdapter => ({
    ...FILESYSTEM_ADAPTER,
    tools: {
      ...FILESYSTEM_ADAPTER.tools,
      [tool]: { ...FILESYSTEM_ADAPTER.tools[tool]!, schemaHash: 'an-older-schema' },
    },
  });

  it('write_file falls back to the generic shape (a path and the whole content), and says so', async () => {
    const { client, questions, logged, path } = await proxied({ 'a.txt': 'a\n' }, [allowOnce()], {
      adapters: [changed('write_file')],
    });
    await call(client, 'write_file', { path: path('a.txt'), content: 'b\n' });
    expect(questions[0]).toContain(
      "What it writes is known from its arguments' shape: a path (path) and the whole new content (content).",
    );
    expect(readFileSync(path('a.txt'), 'utf8')).toBe('b\n');
    expect(logged.map((line) => line.message)).toContainEqual(
      expect.stringContaining("write_file's input schema is not the one"),
    );
  });

  it('edit_file (its dryRun argument is no generic shape) gets a card, never a guessed diff', async () => {
    const { client, questions, path } = await proxied({ 'a.txt': 'a\n' }, [deny()], {
      adapters: [changed('edit_file')],
    });
    await call(client, 'edit_file', { path: path('a.txt'), edits: [{ oldText: 'a', newText: 'b' }] });
    expect(questions[0]).toContain('wants to run edit_file');
    expect(questions[0]).not.toContain('--- ');
    expect(readFileSync(path('a.txt'), 'utf8')).toBe('a\n');
  });
});

describe('a client without elicitation, --approve auto (no terminal is asked: #28)', () => {
  it('refuses as no one to ask (DENIED_NO_APPROVER), with advice, never as the user; audited so', async () => {
    const { root, state } = workspace({ 'a.txt': 'a\n' });
    const audit = join(state, 'audit.jsonl');
    const { client } = await connectProxy(
      { upstream: filesystemUpstream(root), roots: [root], stateDir: state, config: { auditLog: audit } },
      { capabilities: {} },
    );
    const result = await call(client, 'write_file', { path: join(root, 'a.txt'), content: 'b\n' });
    expect(result.isError).toBe(true);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a\n');
    writeFileSync(join(root, 'b.txt'), 'b');
    const moved = await call(client, 'move_file', {
      source: join(root, 'b.txt'),
      destination: join(root, 'c.txt'),
    });
    expect(existsSync(join(root, 'b.txt'))).toBe(true);
    for (const refused of [result, moved]) {
      expect(refused.text).toContain('(DENIED_NO_APPROVER)');
      expect(refused.text).toContain('no one could be asked');
      expect(refused.text).toContain(
        'the client does not support elicitation, no review page is running for the root, and the terminal belongs to the client',
      );
      expect(refused.text).toContain('editgate trust');
      expect(refused.text).toContain('--approve web');
      expect(refused.text).toContain('--approve terminal');
      expect(refused.text).not.toMatch(/the user denied|DENIED_USER|DENIED_POLICY/);
    }
    const lines = readFileSync(audit, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => [line.tool, line.decidedBy, line.code])).toEqual([
      ['write_file', 'editgate', 'DENIED_NO_APPROVER'],
      ['move_file', 'editgate', 'DENIED_NO_APPROVER'],
    ]);
  });

  it('a client that declines faster than a person can read is no one to ask either', async () => {
    const { root, state } = workspace({ 'a.txt': 'a\n' });
    // No scripted answers: the test client declines every question at once, as claude -p does.
    const { client, questions } = await connectProxy(
      { upstream: filesystemUpstream(root), roots: [root], stateDir: state },
      { answers: [] },
    );
    // A loaded machine can make a call be made again (instant-answer.ts).
    const written = await answeredAtOnce(() =>
      call(client, 'write_file', { path: join(root, 'a.txt'), content: 'b\n' }),
    );
    writeFileSync(join(root, 'b.txt'), 'b');
    const moved = await answeredAtOnce(() =>
      call(client, 'move_file', { source: join(root, 'b.txt'), destination: join(root, 'c.txt') }),
    );
    expect(questions).toHaveLength(written.attempts + moved.attempts);
    for (const { result: refused } of [written, moved]) {
      expect(refused.text).toContain('(DENIED_NO_APPROVER)');
      expect(refused.text).toContain('faster than a person can read it');
      expect(refused.text).not.toMatch(/the user denied|DENIED_USER/);
    }
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(existsSync(join(root, 'b.txt'))).toBe(true);
  });
});
