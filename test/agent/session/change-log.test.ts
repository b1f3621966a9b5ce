/**
 * /undo of what a shell command changed: the command's changes are settled by the gate (gate/settle.ts), so
 * /undo puts them back through the gate (guard, pinned root, audit line, hooks, history), never by writing
 * the old bytes to the path itself.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelTarget } from '../../../src/agent/providers/model-target.js';
import { ChatSession, type SessionFrontEnd } from '../../../src/agent/session/chat-session.js';
import type { WrittenChange } from '../../../src/gate/hooks.js';
import { createEditTools } from '../../../src/tools/index.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const made = realpathSync(mkdtempSync(join(tmpdir(), 'editgate-change-log-')));
  folders.push(made);
  return made;
}

const TARGET: ModelTarget = {
  provider: 'test',
  family: 'anthropic',
  modelId: 'none',
  label: 'test/none',
  baseURL: 'http://127.0.0.1:1',
  apiKey: undefined,
} as ModelTarget;

const FRONT_END: SessionFrontEnd = {
  preview: () => {},
  approve: () => 'deny',
  askCommand: async () => 'deny',
  commandChanged: () => {},
};

async function session(files: Record<string, string>) {
  const top = folder();
  const root = join(top, 'root');
  const state = join(top, 'state');
  const outside = join(top, 'outside');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  mkdirSync(outside, { recursive: true });
  const audit = join(top, 'audit.jsonl');
  const hooked: WrittenChange[] = [];
  const chat = await ChatSession.open({
    root,
    target: TARGET,
    projectConfig: {
      config: {},
      options: { auditLog: audit, hooks: { afterChange: (change) => void hooked.push(change) } },
    },
    stateDir: state,
    yes: true,
    frontEnd: FRONT_END,
  });
  const bash = chat.tools.find((tool) => tool.name === 'bash')!;
  const run = async (command: string) => {
    chat.changes.beginTurn();
    const result = await bash.run({ command }, { signal: new AbortController().signal });
    expect(result.ok).toBe(true);
  };
  const auditLines = () =>
    existsSync(audit)
      ? readFileSync(audit, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>)
      : [];
  return { chat, run, root, state, outside, hooked, auditLines };
}

describe("a command's changes and /undo", () => {
  it('a folder swapped for a link out of the root: /undo writes nothing through the link', async () => {
    const { chat, run, root, outside } = await session({ 'keys/id.txt': 'SECRET KEY\n' });
    await run(`rm -rf keys && ln -s ${JSON.stringify(outside)} keys`);
    const report = await chat.undo();
    // Before, /undo wrote the old bytes to root/keys/id.txt itself, through the link: outside/id.txt.
    expect(existsSync(join(outside, 'id.txt'))).toBe(false);
    expect(report?.restored).toEqual([]);
    expect(report?.problems).toHaveLength(1);
    expect(report?.problems[0]).toContain('keys/id.txt');
    expect(existsSync(join(root, 'keys', 'id.txt'))).toBe(false);
  });

  it('is settled by the gate: one audit line, the hooks, history that editgate undo uses', async () => {
    const { run, root, state, hooked, auditLines } = await session({ 'notes.txt': 'keep\n' });
    await run('printf "gone\\n" > notes.txt');
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('gone\n');
    expect(auditLines()).toEqual([
      expect.objectContaining({
        tool: 'bash',
        path: 'notes.txt',
        kind: 'modify',
        decision: 'unreviewed',
        writer: 'a command: printf "gone\\n" > notes.txt',
        stats: { added: 1, removed: 1 },
      }),
    ]);
    expect(hooked.map((change) => [change.tool, change.path, change.kind])).toEqual([
      ['bash', 'notes.txt', 'modify'],
    ]);
    // What `editgate undo notes.txt` does: undo_edit over the same state folder.
    const tools = createEditTools({ root, approve: 'allow', stateDir: state });
    expect(await tools.execute('undo_edit', { file_path: 'notes.txt' })).toMatchObject({ ok: true });
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('keep\n');
  });

  it('/undo puts a modified, a created and a deleted file back through the gate, each audited', async () => {
    const { chat, run, root, hooked, auditLines } = await session({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    await run('printf "A\\n" > a.txt && rm b.txt && echo made > c.txt');
    const report = await chat.undo();
    expect(report?.problems).toEqual([]);
    expect(report?.restored.sort()).toEqual(['a.txt', 'b.txt', 'c.txt']);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('b\n');
    expect(existsSync(join(root, 'c.txt'))).toBe(false);
    const undone = auditLines().filter((line) => line.tool === 'undo_edit');
    expect(undone.map((line) => line.path).sort()).toEqual(['a.txt', 'b.txt', 'c.txt']);
    expect(hooked.filter((change) => change.tool === 'undo_edit')).toHaveLength(3);
    // Nothing left to undo: the steps back are not a turn's changes.
    expect(chat.changes.pendingTurns).toBe(0);
  });

  it('a file changed again after the command is not overwritten by /undo (STALE)', async () => {
    const { chat, run, root } = await session({ 'a.txt': 'a\n' });
    await run('printf "A\\n" > a.txt');
    writeFileSync(join(root, 'a.txt'), 'edited by hand\n');
    const report = await chat.undo();
    expect(report?.restored).toEqual([]);
    expect(report?.problems[0]).toContain('has changed since');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('edited by hand\n');
  });
});
