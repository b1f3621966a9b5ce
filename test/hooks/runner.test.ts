import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Approver } from '../../src/gate/approval.js';
import { closeLanguageServers } from '../../src/gate/diagnostics-check.js';
import { adapter as claude } from '../../src/hooks/agents/claude-code.js';
import { type HookRunOptions, runHook } from '../../src/hooks/runner.js';
import { listSessions } from '../../src/workspace/session-log.js';
import { tempFolder } from '../temp-folder.js';
import { trustConfig } from '../trusted-config.js';

// One hook event through the runner, with Claude Code's adapter (the shapes of its protocol are in
// claude-code.test.ts): the gate's modes, what crosses from pre to post, and every way the hook fails closed.

// biome-ignore lint/suspicious/noExplicitAny: a hook's JSON answer, which each test reads field by field.
type HookJson = any;

interface Setup {
  root: string;
  state: string;
  audit: string;
  run(
    event: Record<string, unknown>,
    options?: Partial<HookRunOptions>,
  ): Promise<{ out: HookJson; exitCode: number }>;
  pre(input: Record<string, unknown>, call?: string): Record<string, unknown>;
  post(input: Record<string, unknown>, call?: string): Record<string, unknown>;
}

function setup(
  config: Record<string, unknown> = { policy: { rules: [{ path: '**', action: 'allow' }] } },
): Setup {
  const folder = tempFolder('editgate-hook-runner-');
  const root = join(folder, 'project');
  const state = join(folder, 'state');
  const audit = join(folder, 'audit.jsonl');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'editgate.config.json'), JSON.stringify({ ...config, auditLog: audit }));
  trustConfig(join(root, 'editgate.config.json'), state);
  writeFileSync(join(root, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  const event = (phase: string, input: Record<string, unknown>, call = 't1') => ({
    session_id: 's1',
    cwd: root,
    hook_event_name: phase,
    tool_name: 'Edit',
    tool_input: { file_path: join(root, 'notes.txt'), ...input },
    tool_use_id: call,
  });
  return {
    root,
    state,
    audit,
    pre: (input, call) => event('PreToolUse', input, call),
    post: (input, call) => event('PostToolUse', input, call),
    async run(body, options = {}) {
      const reply = await runHook(JSON.stringify(body), {
        adapter: claude,
        approve: 'policy',
        stateDir: state,
        ...options,
      });
      return { out: reply.stdout === '' ? undefined : JSON.parse(reply.stdout), exitCode: reply.exitCode };
    },
  };
}

const EDIT = { old_string: 'beta', new_string: 'BETA' };
const decision = (out: HookJson) => out?.hookSpecificOutput?.permissionDecision;
const reason = (out: HookJson) => String(out?.hookSpecificOutput?.permissionDecisionReason ?? '');
const auditLines = (s: Setup) =>
  readFileSync(s.audit, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

describe('runHook', () => {
  it('allows what policy allows, keeps it for the post-tool event, and settles the write as approved', async () => {
    const s = setup();
    const pre = await s.run(s.pre(EDIT));
    expect(decision(pre.out)).toBe('allow');
    writeFileSync(join(s.root, 'notes.txt'), 'alpha\nBETA\ngamma\n');
    const post = await s.run(s.post(EDIT));
    expect(post.out).toBeUndefined();
    expect(auditLines(s).at(-1)).toMatchObject({
      writer: 'Claude Code',
      tool: 'Edit',
      decidedBy: 'policy',
      asApproved: true,
    });
  });

  it("logs an agent conversation's writes as one review session, whichever hook process wrote (#30)", async () => {
    const s = setup();
    for (const [call, from, to] of [
      ['t1', 'beta', 'BETA'],
      ['t2', 'gamma', 'GAMMA'],
    ] as const) {
      const edit = { old_string: from, new_string: to };
      expect(decision((await s.run(s.pre(edit, call))).out)).toBe('allow');
      const now = readFileSync(join(s.root, 'notes.txt'), 'utf8');
      writeFileSync(join(s.root, 'notes.txt'), now.replace(from, to));
      await s.run(s.post(edit, call));
    }
    const sessions = await listSessions(s.state);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.info).toMatchObject({ id: 'claude-code-s1', face: 'hook', label: 'Claude Code' });
    expect(sessions[0]!.changes.map((change) => [change.path, change.writer])).toEqual([
      ['notes.txt', 'Claude Code'],
      ['notes.txt', 'Claude Code'],
    ]);
    // One process (the hook server answers every call) keeps the file's first bytes once, for the review's
    // diff of the whole session, as a face with one gate does: not again for each later change.
    const blobs = readdirSync(join(s.state, 'sessions', 'claude-code-s1', 'blobs'));
    expect(
      blobs.map((blob) => readFileSync(join(s.state, 'sessions', 'claude-code-s1', 'blobs', blob), 'utf8')),
    ).toEqual(['alpha\nbeta\ngamma\n']);
  });

  it('tells the model when the bytes written are not the approved ones', async () => {
    const s = setup();
    await s.run(s.pre(EDIT));
    writeFileSync(join(s.root, 'notes.txt'), 'alpha\nBETA!\ngamma\n');
    const post = await s.run(s.post(EDIT));
    expect(post.out.decision).toBe('block');
    expect(post.out.reason).toContain('notes.txt is not what was approved');
    expect(post.out.reason).toContain('+BETA!');
    expect(auditLines(s).at(-1)).toMatchObject({ asApproved: false });
  });

  it('settles a write it never saw as unreviewed, never as approved', async () => {
    const s = setup();
    writeFileSync(join(s.root, 'notes.txt'), 'alpha\nBETA\ngamma\n');
    await s.run(s.post(EDIT, 'never-seen'));
    expect(auditLines(s).at(-1)).toMatchObject({ decision: 'unreviewed', decidedBy: 'none' });
  });

  it("denies with the policy rule's words", async () => {
    const s = setup({ policy: { rules: [{ path: 'notes.txt', action: 'deny' }] } });
    const pre = await s.run(s.pre(EDIT));
    expect(decision(pre.out)).toBe('deny');
    expect(reason(pre.out)).toContain('Policy does not allow');
  });

  it('denies, with what to do, what no rule decides in policy mode; asks in agent mode', async () => {
    const s = setup({});
    expect(reason((await s.run(s.pre(EDIT))).out)).toContain('only policy rules decide');
    const asked = await s.run(s.pre(EDIT), { approve: 'agent' });
    expect(decision(asked.out)).toBe('ask');
    expect(reason(asked.out)).toContain('notes.txt (+1 -1)');
  });

  it("refuses an edit Claude Code's Edit would refuse, with its reason", async () => {
    const s = setup();
    const pre = await s.run(s.pre({ old_string: 'delta', new_string: 'x' }));
    expect(decision(pre.out)).toBe('deny');
    expect(reason(pre.out)).toContain('old_string was not found');
  });

  it("carries the person's own version back as updatedInput, and tells the model", async () => {
    const s = setup({});
    const page: Approver = async () => ({
      allow: 'once',
      edited: { 'notes.txt': 'alpha\nBeta, edited\ngamma\n' },
    });
    const pre = await s.run(s.pre(EDIT), { approve: 'web', reviewPage: async () => page });
    expect(decision(pre.out)).toBe('allow');
    expect(pre.out.hookSpecificOutput.updatedInput).toMatchObject({
      old_string: 'beta\n',
      new_string: 'Beta, edited\n',
    });
    expect(pre.out.hookSpecificOutput.additionalContext).toContain('+Beta, edited');
  });

  it('fails closed: no page, a page that never answers within the budget, a crash, bad JSON', async () => {
    const s = setup({});
    expect(reason((await s.run(s.pre(EDIT), { approve: 'web' })).out)).toContain(
      'no editgate review page is running',
    );
    const never: Approver = () => new Promise(() => {});
    const slow = await s.run(s.pre(EDIT), { approve: 'web', reviewPage: async () => never, budgetMs: 300 });
    expect(decision(slow.out)).toBe('deny');
    expect(reason(slow.out)).toContain('no decision within');
    const broken = await s.run(s.pre(EDIT), {
      approve: 'web',
      reviewPage: async () => {
        throw new Error('connection refused');
      },
    });
    expect(reason(broken.out)).toContain('connection refused');
    const reply = await runHook('{not json', { adapter: claude, approve: 'policy', stateDir: s.state });
    expect(JSON.parse(reply.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(readFileSync(join(s.root, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\ngamma\n');
  });

  it('lets the call go ahead, saying so, when told to fail open', async () => {
    const s = setup({});
    const warnings: string[] = [];
    const reply = await s.run(s.pre(EDIT), {
      approve: 'web',
      failOpen: true,
      reviewPage: async () => {
        throw new Error('down');
      },
      warn: (line) => warnings.push(line),
    });
    expect(reply.out).toBeUndefined();
    expect(warnings.join('\n')).toContain('fails open');
  });

  it('passes tools that do not write, and events it does not handle', async () => {
    const s = setup();
    expect((await s.run({ ...s.pre(EDIT), tool_name: 'Read' })).out).toBeUndefined();
    expect((await s.run({ ...s.pre(EDIT), hook_event_name: 'SessionStart' })).out).toBeUndefined();
  });
});

describe('runHook with a configured language server (#32 item 4)', () => {
  afterAll(() => closeLanguageServers());

  it("refuses an agent's Edit that adds a type error, naming the error, when a rule says so", async () => {
    const bin = resolve(import.meta.dirname, '../../node_modules/.bin');
    const s = setup({
      languageServers: {
        typescript: { command: [join(bin, 'typescript-language-server'), '--stdio'], files: ['**/*.ts'] },
      },
      // Long enough for a cold server on a loaded machine.
      languageServerBudgetMs: 240_000,
      policy: {
        rules: [
          { path: '**', action: 'allow' },
          { path: '**/*.ts', action: 'deny', change: { diagnostics: true } },
        ],
      },
    });
    writeFileSync(
      join(s.root, 'tsconfig.json'),
      '{ "compilerOptions": { "strict": true, "noEmit": true } }\n',
    );
    const source = 'export function add(a: number, b: number): number {\n  return a + b;\n}\n';
    writeFileSync(join(s.root, 'a.ts'), source);
    const edit = (from: string, to: string, call: string) => ({
      ...s.pre({}, call),
      tool_input: { file_path: join(s.root, 'a.ts'), old_string: from, new_string: to },
    });
    const refused = await s.run(edit('return a + b;', 'return String(a);', 'lsp-1'));
    expect(decision(refused.out)).toBe('deny');
    expect(reason(refused.out)).toMatch(/not assignable to type 'number'/);
    expect(readFileSync(join(s.root, 'a.ts'), 'utf8')).toBe(source);
    // A change that adds none passes the same rule.
    expect(decision((await s.run(edit('return a + b;', 'return b + a;', 'lsp-2'))).out)).toBe('allow');
  }, 300_000);
});
