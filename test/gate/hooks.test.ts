import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type CallWithoutDiff,
  commandAfterCallHook,
  commandAfterChangeHook,
  commandBeforeCallHook,
  commandBeforeChangeHook,
} from '../../src/gate/hooks.js';
import { makeWorkspace, readAll } from '../tools/workspace-fixture.js';

// Hooks as commands: JSON on stdin, a JSON decision on stdout, a timeout; fail closed by default.
describe('command hooks', () => {
  async function editWith(beforeCommand: string, options: { failOpen?: boolean; timeoutMs?: number } = {}) {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const tools = ws.tools({
      hooks: { beforeChange: commandBeforeChangeHook({ command: beforeCommand, ...options }, ws.root) },
    });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'alpha',
      new_string: 'beta',
    });
    return { result, text: await ws.text('a.txt') };
  }

  it('allows on {"decision":"allow"} and receives the proposal as JSON on stdin', async () => {
    const check = `node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const p=JSON.parse(s);console.log(JSON.stringify({decision: p.path==='a.txt'&&p.unifiedDiff.includes('+beta')?'allow':'deny', reason:'unexpected payload'}))})"`;
    const { result, text } = await editWith(check);
    expect(result.ok).toBe(true);
    expect(text).toBe('beta\n');
  });

  it('denies with the reason it prints', async () => {
    const { result, text } = await editWith(`echo '{"decision":"deny","reason":"frozen file"}'`);
    expect(result).toMatchObject({ ok: false, code: 'DENIED_HOOK' });
    expect(result.message).toContain('frozen file');
    expect(text).toBe('alpha\n');
  });

  it('fails closed: a silent, failing or slow hook denies', async () => {
    expect((await editWith('true')).result).toMatchObject({ ok: false, code: 'DENIED_HOOK' });
    const failing = await editWith('echo "lint broke" >&2; exit 3');
    expect(failing.result).toMatchObject({ ok: false, code: 'DENIED_HOOK' });
    expect(failing.result.message).toContain('lint broke');
    const slow = await editWith('sleep 5', { timeoutMs: 200 });
    expect(slow.result.message).toContain('timed out');
    expect(slow.text).toBe('alpha\n');
    expect((await editWith('echo not-json')).result.ok).toBe(false);
  });

  it('a timeout kills the whole process group: a background child holding the output ends too (issue #13)', async () => {
    const ws = await makeWorkspace();
    const pidFile = join(ws.root, 'child.pid');
    // The hook leaves a child in the background that keeps stdout open for a minute (the test's own
    // timeout is 30 s): before the fix the call waited for it to close the pipe.
    const { result, text } = await editWith(`sleep 60 & echo $! > '${pidFile}'; wait`, { timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, code: 'DENIED_HOOK' });
    expect(result.message).toContain('timed out after 300 ms');
    expect(text).toBe('alpha\n');
    const pid = Number(await readFile(pidFile, 'utf8'));
    // SIGKILL is delivered, not awaited: on a busy machine the child may need a moment to be gone (polled;
    // without the group kill it lives for a minute).
    for (let i = 0; i < 300 && isAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(isAlive(pid)).toBe(false);
  });

  it('can be configured to fail open', async () => {
    expect((await editWith('exit 1', { failOpen: true })).result.ok).toBe(true);
  });

  it('after-change command output is appended to the message', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\n' });
    const tools = ws.tools({
      hooks: {
        afterChange: commandAfterChangeHook({ command: `echo '{"message":"2 lint warnings"}'` }, ws.root),
      },
    });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'alpha',
      new_string: 'beta',
    });
    expect(result.ok).toBe(true);
    expect(result.message).toContain('2 lint warnings');
  });
});

// The same commands for a call with no diff (editgate proxy's cards): the same answers and fail-closed rule.
describe('command hooks for a call with no diff', () => {
  const moveCall: CallWithoutDiff = {
    tool: 'move_file',
    server: 'secure-filesystem-server',
    arguments: { source: '/p/a.txt', destination: '/p/b.txt' },
    paths: ['a.txt', 'b.txt'],
    absolutePaths: ['/p/a.txt', '/p/b.txt'],
  };

  it('gets the call as JSON of kind "call", and allows, denies or fails closed as for a change', async () => {
    const ws = await makeWorkspace();
    const payload = `node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const p=JSON.parse(s);console.log(JSON.stringify(p.event==='beforeChange'&&p.kind==='call'&&p.server==='secure-filesystem-server'&&p.arguments.destination==='/p/b.txt'&&p.paths[1]==='b.txt'&&p.absolutePaths[0]==='/p/a.txt'?{decision:'allow'}:{decision:'deny',reason:s}))})"`;
    expect(await commandBeforeCallHook({ command: payload }, ws.root)(moveCall)).toBeUndefined();
    expect(
      await commandBeforeCallHook(
        { command: `echo '{"decision":"deny","reason":"no moves"}'` },
        ws.root,
      )(moveCall),
    ).toEqual({ deny: 'no moves' });
    expect(await commandBeforeCallHook({ command: 'true' }, ws.root)(moveCall)).toEqual({
      deny: 'before-change hook "true" printed no decision',
    });
    expect(
      await commandBeforeCallHook({ command: 'exit 1', failOpen: true }, ws.root)(moveCall),
    ).toBeUndefined();
  });

  it('after the call: what the command prints is what the model reads', async () => {
    const ws = await makeWorkspace();
    // Plain text (JSON would be read for its "message"): the payload's fields, spelled out.
    const spellOut = `node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const p=JSON.parse(s);console.log([p.event,p.kind,p.tool,p.server,p.paths.join('+'),p.absolutePaths.join('+'),JSON.stringify(p.arguments)].join(' '))})"`;
    const said = await commandAfterCallHook({ command: spellOut }, ws.root)(moveCall);
    expect(said).toBe(
      'afterChange call move_file secure-filesystem-server a.txt+b.txt /p/a.txt+/p/b.txt {"source":"/p/a.txt","destination":"/p/b.txt"}',
    );
  });
});

/** Whether a process still runs (a killed one may stay a zombie until reaped: that counts as gone). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}
