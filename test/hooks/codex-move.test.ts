import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adapter } from '../../src/hooks/agents/codex.js';
import { runHook } from '../../src/hooks/runner.js';
import { tempFolder } from '../temp-folder.js';
import { trustConfig } from '../trusted-config.js';

// Codex's `*** Move to:` through the hook, on real files: the move is one change set (the old path deleted,
// the new one written from its bytes), gated, kept and settled as one; what Codex's apply_patch does
// (codex-rs/apply-patch: the patched text written to the new path, replacing a file there, and the old
// path removed) is done here by hand between the pre- and post-tool events.

const MOVE = [
  '*** Begin Patch',
  '*** Update File: src/old.txt',
  '*** Move to: src/new.txt',
  '@@',
  ' alpha',
  '-beta',
  '+BETA',
  '*** End Patch',
  '',
].join('\n');

function setup(config: Record<string, unknown>) {
  const folder = tempFolder('editgate-codex-move-');
  const root = join(folder, 'project');
  const state = join(folder, 'state');
  const audit = join(folder, 'audit.jsonl');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'editgate.config.json'), JSON.stringify({ ...config, auditLog: audit }));
  trustConfig(join(root, 'editgate.config.json'), state);
  writeFileSync(join(root, 'src/old.txt'), 'alpha\nbeta\n');
  const event = (name: string) =>
    JSON.stringify({
      session_id: 's',
      turn_id: 't',
      cwd: root,
      hook_event_name: name,
      tool_name: 'apply_patch',
      tool_input: { command: MOVE },
      tool_use_id: 'call_1',
    });
  const options = { adapter, approve: 'policy' as const, stateDir: state };
  return {
    root,
    pre: () => runHook(event('PreToolUse'), options),
    post: () => runHook(event('PostToolUse'), options),
    /** What Codex's apply_patch does with the move. */
    codexWrites: () => {
      writeFileSync(join(root, 'src/new.txt'), 'alpha\nBETA\n');
      rmSync(join(root, 'src/old.txt'));
    },
    audit: () =>
      readFileSync(audit, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

const ALLOW = { policy: { rules: [{ path: '**', action: 'allow' }] } };
const reason = (stdout: string) => JSON.parse(stdout).hookSpecificOutput.permissionDecisionReason as string;

describe("Codex's apply_patch moving a file, through the hook", () => {
  it('lets a move the rules allow run, and settles both paths as approved', async () => {
    const s = setup(ALLOW);
    const pre = await s.pre();
    // Codex takes silence as "go ahead".
    expect(pre).toMatchObject({ stdout: '', exitCode: 0 });
    s.codexWrites();
    const post = await s.post();
    expect(post.stdout).toBe('');
    const settled = s.audit().filter((line) => line.writer === 'Codex');
    expect(settled.map((line) => [line.path, line.asApproved])).toEqual([
      ['src/old.txt', true],
      ['src/new.txt', true],
    ]);
  });

  it('reports a move whose new file is not the approved text', async () => {
    const s = setup(ALLOW);
    await s.pre();
    s.codexWrites();
    writeFileSync(join(s.root, 'src/new.txt'), 'alpha\nBETA\nmore\n');
    const post = JSON.parse((await s.post()).stdout);
    expect(post.reason).toContain('src/new.txt is not what was approved');
  });

  it('a change rule on moves sees it, and says where to', async () => {
    const s = setup({
      policy: {
        rules: [
          { path: '**', action: 'allow' },
          { path: '**', action: 'deny', change: { moved: true } },
        ],
      },
    });
    const pre = await s.pre();
    expect(reason(pre.stdout)).toContain('moves the file to src/new.txt');
    expect(existsSync(join(s.root, 'src/old.txt'))).toBe(true);
  });

  it('refuses a move whose hunk is not in the file, and one onto a missing file, with what Codex would do', async () => {
    const s = setup(ALLOW);
    writeFileSync(join(s.root, 'src/old.txt'), 'alpha\ngamma\n');
    expect(reason((await s.pre()).stdout)).toContain('not in the file exactly as written');
    rmSync(join(s.root, 'src/old.txt'));
    expect(reason((await s.pre()).stdout)).toMatch(/old\.txt/);
  });

  it('asks about a move onto a file that exists, saying what it loses (agent mode: Codex cannot ask)', async () => {
    const s = setup({});
    writeFileSync(join(s.root, 'src/new.txt'), 'kept until now\n');
    const { stdout } = await runHook(
      JSON.stringify({
        session_id: 's',
        turn_id: 't',
        cwd: s.root,
        hook_event_name: 'PreToolUse',
        tool_name: 'apply_patch',
        tool_input: { command: MOVE },
        tool_use_id: 'call_2',
      }),
      { adapter, approve: 'agent', stateDir: join(s.root, '..', 'state') },
    );
    expect(reason(stdout)).toContain('src/old.txt (+0 -2), src/new.txt (+2 -1)');
  });
});
