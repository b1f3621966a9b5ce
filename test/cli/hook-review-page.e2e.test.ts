import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hookReviewPage } from '../../src/cli/hook-review-page.js';
import { adapter as claude } from '../../src/hooks/agents/claude-code.js';
import { runHook } from '../../src/hooks/runner.js';
import { findReview } from '../../src/web/discovery.js';
import { requestSignInLink } from '../../src/web/remote-review.js';
import { runningReviewFinder } from '../../src/web/web-approval.js';
import { ensureBuilt, MAIN } from '../built-cli.js';
import { tempFolder } from '../temp-folder.js';
import { answerOnPage } from '../web/page-api.js';

const runFile = promisify(execFile);

// `--approve web` with no `editgate review` running (issue #29 item 2, "one started and linked"): the built
// CLI's hook as the agent runs it, a process per call; the page it starts is the real `editgate review`,
// answered through its JSON API; $BROWSER is a script that records what it was given.

beforeAll(ensureBuilt, 300_000);

interface Workspace {
  root: string;
  state: string;
  config: string;
  browsed: string;
  env: Record<string, string>;
}

const pages: Workspace[] = [];
const hooks: ChildProcess[] = [];

afterEach(async () => {
  for (const child of hooks.splice(0)) child.kill('SIGKILL');
  // The pages the hooks started outlive them, as they do for a person: stopped here.
  for (const ws of pages.splice(0)) for (const pid of reviewPids(ws.root)) process.kill(pid, 'SIGTERM');
});

function workspace(userConfig?: Record<string, unknown>): Workspace {
  const folder = tempFolder('editgate-hook-page-');
  const ws = {
    root: join(folder, 'project'),
    state: join(folder, 'state'),
    config: join(folder, 'config'),
    browsed: join(folder, 'browsed.txt'),
    env: {} as Record<string, string>,
  };
  mkdirSync(ws.root);
  mkdirSync(join(ws.config, 'editgate'), { recursive: true });
  writeFileSync(join(ws.root, 'notes.txt'), 'alpha\nbeta\n');
  if (userConfig) writeFileSync(join(ws.config, 'editgate', 'config.json'), JSON.stringify(userConfig));
  const browser = join(folder, 'browser.sh');
  writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${ws.browsed}'\n`);
  chmodSync(browser, 0o755);
  ws.env = { EDITGATE_STATE_DIR: ws.state, XDG_CONFIG_HOME: ws.config, BROWSER: browser };
  pages.push(ws);
  return ws;
}

function preEvent(ws: Workspace, call: string): string {
  return JSON.stringify({
    session_id: 's1',
    cwd: ws.root,
    hook_event_name: 'PreToolUse',
    tool_name: 'Edit',
    tool_input: { file_path: join(ws.root, 'notes.txt'), old_string: 'beta', new_string: 'BETA' },
    tool_use_id: call,
  });
}

/** Claude Code's PreToolUse answer, as far as these tests read it. */
interface HookJson {
  hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string };
}

interface HookRun {
  done: boolean;
  reply: Promise<{ code: number | null; out: HookJson; stderr: string }>;
}

/** `editgate hook claude-code --approve web`, as Claude Code runs it for one PreToolUse event. */
function hook(ws: Workspace, call: string): HookRun {
  const child = spawn(process.execPath, [MAIN, 'hook', 'claude-code', '--approve', 'web'], {
    cwd: ws.root,
    env: { ...process.env, ...ws.env },
  });
  hooks.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin!.end(preEvent(ws, call));
  const run: HookRun = {
    done: false,
    reply: new Promise((resolve) =>
      child.on('close', (code) => {
        run.done = true;
        resolve({ code, out: JSON.parse(stdout || '{}') as HookJson, stderr });
      }),
    ),
  };
  return run;
}

const decision = (out: HookJson) => out.hookSpecificOutput?.permissionDecision;
const reason = (out: HookJson) => String(out.hookSpecificOutput?.permissionDecisionReason ?? '');

/** The `editgate review` processes serving this root. */
function reviewPids(root: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (args.includes('review') && args.includes(root)) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** The page's discovery file, once the hook has started it (what every editgate process looks for). */
async function discovered(ws: Workspace) {
  const until = Date.now() + 60_000;
  for (;;) {
    const found = await findReview(ws.state, ws.root);
    if ('found' in found) return found.found;
    if (Date.now() > until) throw new Error('no review page was published within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const browsedLines = (ws: Workspace) =>
  existsSync(ws.browsed) ? readFileSync(ws.browsed, 'utf8').split('\n').filter(Boolean) : [];

describe('editgate hook --approve web with no review page running', () => {
  it('starts one (discoverable), opens it in the browser, and answers only after the page does', async () => {
    const ws = workspace();
    const run = hook(ws, 't1');
    const page = await discovered(ws);
    expect(reviewPids(ws.root)).toEqual([page.pid]);
    // Started to end when idle, and listed by hooks status.
    const args = readFileSync(`/proc/${page.pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
    expect(args.slice(args.indexOf('review'))).toEqual(['review', '--idle-exit', '15', '--', ws.root]);
    const status = await runFile(process.execPath, [MAIN, 'hooks', 'status', 'claude-code'], {
      env: { ...process.env, ...ws.env, HOME: ws.root },
      encoding: 'utf8',
    });
    expect(status.stdout).toContain(
      `Review page: running for ${page.root}, pid ${page.pid}, http://127.0.0.1:${page.port}/ (editgate review ${page.root} --link prints a sign-in link; one a hook started ends after 15 minutes with nothing to do).`,
    );
    // The browser was given a file only this user can read, which leads to the page's sign-in link.
    await expect.poll(() => browsedLines(ws).length, { timeout: 10_000 }).toBe(1);
    const opened = browsedLines(ws)[0]!;
    expect(opened).toMatch(/^file:\/\/.*\/review\/open-[A-Za-z0-9_-]{43}\.html$/);
    expect(opened).not.toContain('token');
    const link = await requestSignInLink(page);
    await answerOnPage(link, { decision: 'deny', reason: 'not before lunch' });
    const denied = await run.reply;
    expect(decision(denied.out)).toBe('deny');
    expect(reason(denied.out)).toContain('not before lunch');
    // The next call finds the page running: asked there, nothing started, no other tab.
    const again = hook(ws, 't2');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(again.done, 'the hook waits for the answer').toBe(false);
    expect(readFileSync(join(ws.root, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\n');
    await answerOnPage(link, { decision: 'once' });
    const allowed = await again.reply;
    expect(decision(allowed.out), allowed.stderr).toBe('allow');
    expect(reviewPids(ws.root)).toEqual([page.pid]);
    expect(browsedLines(ws)).toHaveLength(1);
    // The hook never writes: the agent's tool does, after this answer.
    expect(readFileSync(join(ws.root, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\n');
  }, 120_000);

  it('starts one page when two hooks find none at once, and both are asked there', async () => {
    const ws = workspace();
    const first = hook(ws, 't1');
    const second = hook(ws, 't2');
    const page = await discovered(ws);
    const link = await requestSignInLink(page);
    await answerOnPage(link, { decision: 'deny', reason: 'one at a time' });
    await answerOnPage(link, { decision: 'once' });
    const replies = await Promise.all([first.reply, second.reply]);
    expect(replies.map((reply) => decision(reply.out)).sort()).toEqual(['allow', 'deny']);
    expect(replies.map((reply) => reason(reply.out)).join('\n')).toContain('one at a time');
    expect(reviewPids(ws.root)).toEqual([page.pid]);
    expect(browsedLines(ws)).toHaveLength(1);
  }, 120_000);

  it('refuses at once, saying to start editgate review, when the person turned starting off', async () => {
    const ws = workspace({ review: { startForHooks: false } });
    const { out } = await hook(ws, 't1').reply;
    expect(decision(out)).toBe('deny');
    expect(reason(out)).toContain(`no editgate review page is running for ${ws.root}`);
    expect(reason(out)).toContain(`start \`editgate review ${ws.root}\``);
    expect(reviewPids(ws.root)).toEqual([]);
    expect(browsedLines(ws)).toEqual([]);
  }, 60_000);

  it('starts nothing from a state folder others can write, and says why', async () => {
    const ws = workspace();
    mkdirSync(ws.state);
    chmodSync(ws.state, 0o777);
    const { out } = await hook(ws, 't1').reply;
    expect(decision(out)).toBe('deny');
    expect(reason(out)).toContain('no review page was started');
    expect(reason(out)).toContain('can be written by others');
    expect(reviewPids(ws.root)).toEqual([]);
    expect(existsSync(join(ws.state, 'review'))).toBe(true);
    expect(readdirSync(join(ws.state, 'review'))).toEqual([]);
  }, 60_000);

  it("starts nothing for a root that is not an existing folder's absolute path (it comes from the agent)", async () => {
    const ws = workspace();
    const start = (root: string) =>
      hookReviewPage({
        root,
        stateDir: ws.state,
        look: async () => undefined,
        editgate: [process.execPath, MAIN],
        env: { ...process.env, ...ws.env },
        warn: () => undefined,
      });
    for (const root of ['--port=80', 'project', join(ws.root, 'missing')])
      await expect(start(root)).rejects.toThrow('not an existing folder');
    expect(existsSync(join(ws.state, 'review'))).toBe(false);
  });

  it('refuses with the page address when no answer comes within the time the agent gives', async () => {
    const ws = workspace();
    const look = runningReviewFinder({ root: ws.root, stateDir: ws.state, source: 'test' });
    const reply = await runHook(preEvent(ws, 't1'), {
      adapter: claude,
      approve: 'web',
      stateDir: ws.state,
      budgetMs: 8000,
      reviewPage: async (root, shown) => {
        const page = await hookReviewPage({
          root,
          stateDir: ws.state,
          look,
          editgate: [process.execPath, MAIN],
          env: { ...process.env, ...ws.env },
          warn: () => undefined,
        });
        if (page) shown?.(page.address);
        return page?.ask;
      },
    });
    const page = await discovered(ws);
    const out = JSON.parse(reply.stdout);
    expect(decision(out)).toBe('deny');
    expect(reason(out)).toContain('no decision within 8 s');
    expect(reason(out)).toContain(`the review page at http://127.0.0.1:${page.port}/`);
    expect(reason(out)).toContain('--link');
  }, 120_000);
});
