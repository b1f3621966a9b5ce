/**
 * OpenCode (1.18.33): the bytes its edit and write leave, worked out as its source does; the plugin editgate
 * installs, run in Node against stand-in hook commands (what it does with each answer, and that it fails
 * closed); the adapter's protocol with that plugin; the plugin file installed and removed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { adapter, installer } from '../../src/hooks/agents/opencode.js';
import { applyOpenCodeEdit, applyOpenCodeWrite } from '../../src/hooks/agents/opencode-edits.js';
import { PLUGIN_MARKER, pluginSource } from '../../src/hooks/agents/opencode-plugin.js';

const P = '/p/notes.txt';
const b = (text: string) => Buffer.from(text, 'utf8');
const edit = (current: string | null, oldString: string, newString: string, replaceAll?: boolean) =>
  applyOpenCodeEdit(P, current === null ? null : b(current), {
    oldString,
    newString,
    ...(replaceAll ? { replaceAll } : {}),
  }).toString('utf8');

describe("OpenCode's edit, worked out as it writes", () => {
  it('replaces a unique exact match in place', () => {
    expect(edit('alpha\nbeta\n', 'beta', 'BETA')).toBe('alpha\nBETA\n');
  });

  it('replaceAll uses String.replaceAll as OpenCode does, replacement patterns included', () => {
    expect(edit('x-x\n', 'x', '[$&]', true)).toBe('[x]-[x]\n');
  });

  it('gives old and new text the file line ends (CRLF file, LF input)', () => {
    expect(edit('a\r\nb\r\n', 'a\nb', 'A\nB')).toBe('A\r\nB\r\n');
  });

  it('keeps a byte-order mark, and creates a file with an empty oldString', () => {
    expect(applyOpenCodeEdit(P, b('\uFEFFa\n'), { oldString: 'a', newString: 'b' })).toEqual(b('\uFEFFb\n'));
    expect(edit(null, '', 'new\n')).toBe('new\n');
    expect(() => edit('x', '', 'y')).toThrow(/already exists/);
  });

  it('refuses rather than guess: not found exactly, or found several times without replaceAll', () => {
    expect(() => edit('  a\n', 'a \n', 'b')).toThrow(/not found.*exactly/);
    expect(() => edit('a a\n', 'a', 'b')).toThrow(/more than once/);
  });

  it('write keeps a byte-order mark the file had', () => {
    expect(applyOpenCodeWrite(b('\uFEFFold'), 'new')).toEqual(b('\uFEFFnew'));
    expect(applyOpenCodeWrite(null, 'new')).toEqual(b('new'));
  });
});

describe("the adapter's protocol with the plugin", () => {
  const event = (name: string, tool: string, args: Record<string, unknown>) => ({
    hook_event_name: name,
    session_id: 's',
    call_id: 'c1',
    tool,
    args,
    cwd: '/p',
  });

  it('reads edit, write and apply_patch as the files they write; refuses a patch read otherwise; passes the rest', () => {
    expect(
      adapter.parse(
        event('tool.execute.before', 'edit', { filePath: 'n.txt', oldString: 'a', newString: 'b' }),
      ),
    ).toMatchObject({
      read: { kind: 'write', key: { session: 's', call: 'c1' } },
    });
    const patch =
      '*** Begin Patch\n*** Update File: n.txt\n@@\n-a\n+b\n*** Add File: m.txt\n+m\n*** End Patch';
    expect(adapter.parse(event('tool.execute.before', 'apply_patch', { patchText: patch }))).toMatchObject({
      read: {
        kind: 'write',
        tool: 'apply_patch',
        files: [{ path: '/p/n.txt' }, { path: '/p/m.txt' }],
      },
    });
    expect(adapter.parse(event('tool.execute.after', 'apply_patch', { patchText: patch }))).toMatchObject({
      read: { kind: 'settle', paths: ['/p/n.txt', '/p/m.txt'] },
    });
    // A first hunk without "@@": OpenCode skips its lines, so editgate refuses rather than show them.
    const skipped = patch.replace('@@\n', '');
    expect(adapter.parse(event('tool.execute.before', 'apply_patch', { patchText: skipped }))).toMatchObject({
      read: { kind: 'refuse', reason: expect.stringMatching(/before the first "@@"/) },
    });
    expect(() => adapter.parse(event('tool.execute.before', 'apply_patch', {}))).toThrow(/patchText/);
    expect(adapter.parse(event('tool.execute.before', 'bash', { command: 'ls' }))).toMatchObject({
      read: { kind: 'pass' },
    });
  });

  it('answers ask with a refusal: OpenCode plugins cannot ask in its own prompt', () => {
    const reply = JSON.parse(adapter.pre({ kind: 'ask', reason: 'Asked.' }).stdout);
    expect(reply.decision).toBe('deny');
    expect(reply.reason).toMatch(/--approve web/);
  });

  it("carries the person's version back as a patch OpenCode places at exactly one place", () => {
    const file = { path: 'n.txt', before: 'a\nb\n', proposed: 'a\nB\n', approved: 'a\nBee\n' };
    expect(adapter.revise?.({ patchText: '*** Begin Patch\n*** End Patch' }, [file])).toEqual({
      patchText:
        '*** Begin Patch\n*** Update File: n.txt\n@@\n-a\n-b\n+a\n+Bee\n*** End of File\n*** End Patch\n',
    });
  });

  it("carries the person's version as new args", () => {
    const file = { path: P, before: 'a\nb\n', proposed: 'a\nB\n', approved: 'a\nBee\n' };
    expect(adapter.revise?.({ filePath: P, oldString: 'b', newString: 'B' }, [file])).toEqual({
      filePath: P,
      oldString: 'b\n',
      newString: 'Bee\n',
    });
  });
});

describe('the plugin inside OpenCode, run against stand-in hook commands', () => {
  const folder = mkdtempSync(join(tmpdir(), 'editgate-opencode-plugin-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  // A stand-in for `editgate hook opencode`: its behaviour is its last argument.
  const standIn = join(folder, 'stand-in.mjs');
  writeFileSync(
    standIn,
    `let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const event = JSON.parse(input);
  const mode = process.argv.at(-1);
  if (mode === 'crash') { process.stderr.write('boom'); process.exit(1); }
  if (mode === 'hang') { setTimeout(() => {}, 60000); return; }
  if (mode === 'garbage') { process.stdout.write('hello'); return; }
  if (mode === 'deny') { process.stdout.write(JSON.stringify({ decision: 'deny', reason: 'No: ' + event.args.filePath })); return; }
  if (mode === 'rewrite') { process.stdout.write(JSON.stringify({ decision: 'allow', args: { filePath: event.args.filePath, oldString: 'x', newString: 'y' }, context: 'The user changed it.' })); return; }
  if (event.hook_event_name === 'chat.message') { process.stdout.write(JSON.stringify({ decision: 'pass', context: 'review of ' + event.session_id })); return; }
  if (event.hook_event_name === 'tool.execute.after') { process.stdout.write(JSON.stringify({ decision: 'pass', message: 'after:' + event.call_id })); return; }
  process.stdout.write(JSON.stringify({ decision: 'pass' }));
});
`,
  );
  let count = 0;
  async function plugin(mode: string, extra: string[] = []) {
    const file = join(folder, `plugin-${count++}.mjs`);
    writeFileSync(
      file,
      pluginSource({
        argv: [process.execPath, standIn, ...extra, mode],
        // Short only where the time-out is what is tested: a Node start takes seconds on a loaded machine.
        timeoutMs: mode === 'hang' ? 1500 : 60_000,
        tools: ['edit', 'write'],
      }),
    );
    const module = (await import(pathToFileURL(file).href)) as {
      EditgateHooks: (ctx: {
        directory: string;
      }) => Promise<Record<string, (input: unknown, output: unknown) => Promise<void>>>;
    };
    return module.EditgateHooks({ directory: folder });
  }
  const input = { tool: 'edit', sessionID: 's', callID: 'c' };

  it('starts with the marker line the installer knows it by', () => {
    expect(pluginSource({ argv: ['editgate'], timeoutMs: 1, tools: [] }).startsWith(PLUGIN_MARKER)).toBe(
      true,
    );
  });

  it('throws the reason editgate gives for a deny (OpenCode fails the call with it)', async () => {
    const hooks = await plugin('deny');
    await expect(hooks['tool.execute.before']!(input, { args: { filePath: '/x' } })).rejects.toThrow(
      'No: /x',
    );
  });

  it("replaces the args in place with the person's version", async () => {
    const hooks = await plugin('rewrite');
    const args = { filePath: '/x', oldString: 'a', newString: 'b', replaceAll: true };
    await hooks['tool.execute.before']!(input, { args });
    expect(args).toEqual({ filePath: '/x', oldString: 'x', newString: 'y' });
  });

  it("adds editgate's after-message to the result the model reads", async () => {
    const hooks = await plugin('pass');
    const output = { output: 'Edit applied successfully.' };
    await hooks['tool.execute.after']!({ ...input, args: {} }, output);
    expect(output.output).toBe('Edit applied successfully.\n\nafter:c');
  });

  it("adds a session review's reasons to the text of the person's message; a failure leaves it as it was", async () => {
    const hooks = await plugin('pass');
    const parts = [
      { type: 'text', text: 'go on' },
      { type: 'file', mime: 'image/png' },
    ];
    await hooks['chat.message']!({ sessionID: 's9' }, { message: {}, parts });
    expect(parts[0]).toEqual({ type: 'text', text: 'go on\n\nreview of s9' });
    // No text part of the person's (only a synthetic one): editgate is not asked, nothing is taken.
    const synthetic = [{ type: 'text', text: 'x', synthetic: true }];
    await hooks['chat.message']!({ sessionID: 's9' }, { message: {}, parts: synthetic });
    expect(synthetic[0]!.text).toBe('x');
    for (const mode of ['crash', 'garbage']) {
      const failing = await plugin(mode);
      const kept = [{ type: 'text', text: 'go on' }];
      await failing['chat.message']!({ sessionID: 's9' }, { message: {}, parts: kept });
      expect(kept[0]!.text).toBe('go on');
    }
  });

  it('leaves tools it does not gate alone without starting editgate', async () => {
    const hooks = await plugin('deny');
    await hooks['tool.execute.before']!({ ...input, tool: 'bash' }, { args: { command: 'ls' } });
  });

  it.each([
    ['crash', /hook failed \(boom\)/],
    ['garbage', /hook failed \(editgate exited with code 0 and no answer\)/],
    ['hang', /did not answer within 2 s/],
  ])('fails closed when editgate %s', async (mode, message) => {
    const hooks = await plugin(mode);
    await expect(hooks['tool.execute.before']!(input, { args: { filePath: '/x' } })).rejects.toThrow(message);
  });

  it('lets the call through when the command line says --fail-open', async () => {
    const hooks = await plugin('crash', ['--fail-open']);
    await hooks['tool.execute.before']!(input, { args: { filePath: '/x' } });
  });
});

describe('the plugin file editgate installs', () => {
  const command = {
    argv: ['/usr/bin/editgate', 'hook', 'opencode', '--approve', 'web'],
    nodeArgv: ['/usr/bin/editgate', 'hook', 'opencode', '--approve', 'web'],
    line: '',
    timeoutSeconds: 600,
  };
  const place = { root: '/proj', home: '/home/me', env: { XDG_CONFIG_HOME: '/xdg' } };

  it('goes in the plugins folder of the project, or of the config folder', () => {
    expect(installer.file('project', place)).toBe('/proj/.opencode/plugins/editgate.js');
    expect(installer.file('user', place)).toBe('/xdg/opencode/plugins/editgate.js');
  });

  it('embeds the command as JSON, installs once, and never overwrites a file of the person', () => {
    const text = installer.add(undefined, command as never);
    expect(text).toContain('const COMMAND = ["/usr/bin/editgate","hook","opencode","--approve","web"];');
    expect(installer.add(text, command as never)).toBe(text);
    expect(installer.find(text)).toEqual([
      expect.stringContaining('asks editgate before edit, write and apply_patch'),
      expect.stringContaining('chat.message'),
    ]);
    expect(installer.remove(text)).toBeUndefined();
    expect(() => installer.add('export const Mine = async () => ({});', command as never)).toThrow(
      /not editgate's plugin/,
    );
  });
});
