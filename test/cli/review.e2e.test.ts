import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN } from '../built-cli.js';
import { answerOnPage, LINK, listedChanges } from '../web/page-api.js';
import { http, signInWith } from '../web/review-fixture.js';
import { type PtyRun, spawnCli } from './pty.js';
import { cliWorkspace, runCli } from './run-cli.js';

// --approve web and `editgate review` as people and programs use them: the built CLI as processes, the
// page's JSON API (what the page's script calls) to answer.

beforeAll(ensureBuilt, 120_000);

const children: ChildProcessWithoutNullStreams[] = [];
const ptys: PtyRun[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const run of ptys.splice(0)) run.kill();
});

interface Started {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  /** Resolves with the first match of `pattern` in stdout + stderr. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

/** Runs the built CLI in the workspace with pipes (no terminal), reading its output as it comes. */
function start(
  args: string[],
  ws: { root: string; stateDir: string; env?: Record<string, string> },
): Started {
  const options = { cwd: ws.root, stateDir: ws.stateDir, env: ws.env };
  const child = spawn(process.execPath, [MAIN, ...args], {
    cwd: options.cwd,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, EDITGATE_STATE_DIR: options.stateDir, NO_COLOR: '1', ...options.env },
  });
  children.push(child);
  let output = '';
  const waiters: Array<{ pattern: RegExp; resolve: (match: RegExpExecArray) => void }> = [];
  const feed = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(output);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  };
  child.stdout.on('data', feed);
  child.stderr.on('data', feed);
  child.stdin.end();
  return {
    child,
    output: () => output,
    waitFor: (pattern) =>
      new Promise((resolve) => {
        const match = pattern.exec(output);
        if (match) resolve(match);
        else waiters.push({ pattern, resolve });
      }),
    exited: new Promise((resolve) => child.on('close', (code) => resolve(code))),
  };
}

/** `editgate edit --approve web` in a real terminal, once its question is on the screen. */
async function editInTerminal(ws: { root: string; stateDir: string }): Promise<PtyRun> {
  const run = spawnCli(['edit', 'app.ts', '--old', 'a = 1', '--new', 'a = 2', '--approve', 'web'], {
    cwd: ws.root,
    stateDir: ws.stateDir,
    cols: 200,
  });
  ptys.push(run);
  await run.waitForText('v view the whole diff');
  return run;
}

describe('editgate edit --approve web', () => {
  it('serves its own page, prints its link, and writes what the page allows', async () => {
    const ws = cliWorkspace({ 'app.ts': 'const a = 1;\n' });
    const run = start(['edit', 'app.ts', '--old', 'a = 1', '--new', 'a = 2', '--approve', 'web'], ws);
    const [link] = await run.waitFor(LINK);
    expect(run.output()).toContain(`Review changes in your browser: ${link}`);
    const { answer } = await answerOnPage(link, { decision: 'once' });
    expect(answer.status).toBe(200);
    expect(await run.exited).toBe(0);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 2;\n');
    expect(run.output()).toContain('Edited app.ts: 1 replacement, +1 -1 lines.');
  });

  it('denied on the page with a reason: nothing written, exit 3, the reason printed', async () => {
    const ws = cliWorkspace({ 'app.ts': 'const a = 1;\n' });
    const run = start(['edit', 'app.ts', '--old', 'a = 1', '--new', 'a = 2', '--approve', 'web'], ws);
    const [link] = await run.waitFor(LINK);
    await answerOnPage(link, { decision: 'deny', reason: 'keep it at 1' });
    expect(await run.exited).toBe(3);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 1;\n');
    expect(run.output()).toContain('DENIED_USER: you said no to the change to app.ts: keep it at 1');
  });

  it('"approve": "web" in the config chooses the page; --open opens it with $BROWSER, the link on no command line', async () => {
    const ws = cliWorkspace({ 'editgate.config.json': JSON.stringify({ approve: 'web' }), 'n.txt': 'x\n' });
    const opened = join(ws.stateDir, '..', 'opened.txt');
    const browser = join(ws.stateDir, '..', 'browser.sh');
    // The browser's arguments, as every user sees them in /proc/PID/cmdline, and the page it was given.
    writeFileSync(
      browser,
      // Written whole, then renamed: the test waits for the name, so it never reads a page half copied.
      `#!/bin/sh\nprintf '%s' "$*" > '${opened}'\ncat "\${1#file://}" > '${opened}.part'\nmv '${opened}.part' '${opened}.html'\n`,
    );
    chmodSync(browser, 0o755);
    const run = start(['write', 'n.txt', '--content', 'y\n', '--open'], { ...ws, env: { BROWSER: browser } });
    const [link] = await run.waitFor(LINK);
    while (!existsSync(`${opened}.html`)) await new Promise((resolve) => setTimeout(resolve, 20));
    const argument = readFileSync(opened, 'utf8');
    expect(argument).toMatch(
      new RegExp(`^file://${join(ws.stateDir, 'review')}/open-[A-Za-z0-9_-]{43}\\.html$`),
    );
    expect(argument).not.toContain('token');
    const page = argument.slice('file://'.length);
    expect(lstatSync(page).mode & 0o777).toBe(0o600);
    // The page sends the browser on to a link of its own, not the printed one; each works once.
    const [own] = LINK.exec(readFileSync(`${opened}.html`, 'utf8'))!;
    expect(own).not.toBe(link);
    await answerOnPage(own, { decision: 'once' });
    expect(await run.exited).toBe(0);
    expect(readFileSync(join(ws.root, 'n.txt'), 'utf8')).toBe('y\n');
    // Gone with the process.
    expect(existsSync(page)).toBe(false);
  });

  it('the terminal question stays live: answered in the browser, the terminal says so', async () => {
    const ws = cliWorkspace({ 'app.ts': 'const a = 1;\n' });
    const run = await editInTerminal(ws);
    const link = LINK.exec(run.text())![0];
    await answerOnPage(link, { decision: 'once' });
    await run.waitForText('✓ Yes (answered in the browser)');
    expect(await run.exited()).toBe(0);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 2;\n');
  });

  it('answered in the terminal, the review page shows who answered', async () => {
    const ws = cliWorkspace({ 'app.ts': 'const a = 1;\n' });
    const review = start(['review'], ws);
    const [pageLink] = await review.waitFor(LINK);
    const run = await editInTerminal(ws);
    expect(run.text()).toContain('Changes go to the review page of editgate review');
    const pending = async () => (await listedChanges(pageLink))[0];
    while ((await pending())?.status !== 'pending') await new Promise((resolve) => setTimeout(resolve, 50));
    await run.answer('y');
    expect(await run.exited()).toBe(0);
    let listed = await pending();
    while (listed?.status !== 'answered') {
      await new Promise((resolve) => setTimeout(resolve, 50));
      listed = await pending();
    }
    expect(listed.outcome).toEqual({ by: 'in the terminal', decision: 'once' });
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 2;\n');
  });

  it.each([
    [['--approve', 'browser'], '--approve must be terminal or web'],
    [['--approve', 'web', '--yes'], '--yes approves without asking, --approve web asks on a page'],
  ])('%j is a usage error (exit 2), nothing written', async (flags, message) => {
    const ws = cliWorkspace({ 'a.txt': 'x\n' });
    const result = await runCli(['write', 'a.txt', '--content', 'y\n', ...flags], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(readFileSync(join(ws.root, 'a.txt'), 'utf8')).toBe('x\n');
  });
});

describe('editgate review', () => {
  it('serves the page for a root; processes run with --approve web send their changes to it; Ctrl-C removes its discovery file', async () => {
    const ws = cliWorkspace({ 'a.txt': 'one\n', 'b.txt': 'two\n' });
    const review = start(['review', ws.root], ws);
    const [link] = await review.waitFor(LINK);
    const folder = join(ws.stateDir, 'review');
    const [file] = readdirSync(folder);
    expect(lstatSync(join(folder, file!)).mode & 0o777).toBe(0o600);
    expect(lstatSync(folder).mode & 0o777).toBe(0o700);
    const record = JSON.parse(readFileSync(join(folder, file!), 'utf8'));
    expect(record).toMatchObject({ version: 2, root: ws.root, pid: review.child.pid });
    expect(record.port).toBe(Number(new URL(link).port));

    const again = await runCli(['review', ws.root], { cwd: ws.root, stateDir: ws.stateDir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `a review page for ${ws.root} is already running (pid ${review.child.pid}, http://127.0.0.1:${record.port}/); editgate review --link prints a new sign-in link for it`,
    );

    const first = start(['write', 'a.txt', '--content', 'ONE\n', '--approve', 'web'], ws);
    await first.waitFor(/Changes go to the review page of editgate review \(pid \d+\)/);
    await answerOnPage(link, { decision: 'once' });
    expect(await first.exited).toBe(0);
    const second = start(['write', 'b.txt', '--content', 'TWO\n', '--approve', 'web'], ws);
    await second.waitFor(/Changes go to the review page/);
    await answerOnPage(link, { decision: 'deny' });
    expect(await second.exited).toBe(3);
    expect(readFileSync(join(ws.root, 'a.txt'), 'utf8')).toBe('ONE\n');
    expect(readFileSync(join(ws.root, 'b.txt'), 'utf8')).toBe('two\n');

    process.kill(review.child.pid!, 'SIGINT');
    expect(await review.exited).toBe(0);
    expect(existsSync(join(folder, file!))).toBe(false);
  });

  it.each(['SIGHUP', 'SIGTERM'] as const)(
    '%s (the terminal closing, kill) removes the discovery file too',
    async (signal) => {
      const ws = cliWorkspace({ 'a.txt': 'one\n' });
      const review = start(['review'], ws);
      await review.waitFor(LINK);
      const folder = join(ws.stateDir, 'review');
      expect(readdirSync(folder)).toHaveLength(1);
      process.kill(review.child.pid!, signal);
      expect(await review.exited).toBe(0);
      expect(readdirSync(folder)).toEqual([]);
    },
  );

  // What keeps a page from being idle (a change waiting, a page open) is tested on a real server in
  // test/web/review-idle.test.ts; here, the command: its option, and the page stopping whole.
  it('--idle-exit: with nothing to do for the minutes given, the page stops, discovery file and all', async () => {
    const ws = cliWorkspace({ 'a.txt': 'one\n' });
    const bad = await runCli(['review', ws.root, '--idle-exit', '0'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--idle-exit takes minutes, a number above 0 (got "0")');
    // 0.02 minutes: 1.2 s with nothing waiting and no page open.
    const review = start(['review', ws.root, '--idle-exit', '0.02'], ws);
    await review.waitFor(LINK);
    const folder = join(ws.stateDir, 'review');
    expect(readdirSync(folder)).toHaveLength(1);
    expect(await review.exited).toBe(0);
    expect(review.output()).toContain(
      'Nothing waited and no page was open for 0.02 minute(s): the review page stops (--idle-exit).',
    );
    expect(readdirSync(folder)).toEqual([]);
  });

  it('--open hands the browser a file, not the link: no token on its command line, and its own link works once', async () => {
    const ws = cliWorkspace({ 'a.txt': 'one\n' });
    const opened = join(ws.stateDir, '..', 'review-opened.txt');
    const browser = join(ws.stateDir, '..', 'review-browser.sh');
    writeFileSync(
      browser,
      `#!/bin/sh\nprintf '%s' "$*" > '${opened}.tmp' && mv '${opened}.tmp' '${opened}'\n`,
    );
    chmodSync(browser, 0o755);
    const review = start(['review', '--open'], { ...ws, env: { BROWSER: browser } });
    const [printed] = await review.waitFor(LINK);
    while (!existsSync(opened)) await new Promise((resolve) => setTimeout(resolve, 20));
    const argument = readFileSync(opened, 'utf8');
    expect(argument).toMatch(/^file:\/\/\S+\/review\/open-[A-Za-z0-9_-]{43}\.html$/);
    expect(argument).not.toContain('token');
    const [own] = LINK.exec(readFileSync(argument.slice('file://'.length), 'utf8'))!;
    expect(own).not.toBe(printed);
    await signInWith(own);
    await expect(signInWith(own)).rejects.toThrow('HTTP 410');
    // The printed link is another, still good for another browser.
    await signInWith(printed);
    process.kill(review.child.pid!, 'SIGINT');
    expect(await review.exited).toBe(0);
  });

  it('each link signs in once; --link prints a new one for the running page, which works once too', async () => {
    const ws = cliWorkspace({ 'a.txt': 'one\n' });
    const review = start(['review'], ws);
    const [link] = await review.waitFor(LINK);
    await signInWith(link);
    await expect(signInWith(link)).rejects.toThrow('HTTP 410');
    const asked = await runCli(['review', '--link'], { cwd: ws.root, stateDir: ws.stateDir });
    expect(asked.code).toBe(0);
    const [next] = LINK.exec(asked.stdout)!;
    expect(next).not.toBe(link);
    expect(new URL(next).port).toBe(new URL(link).port);
    await signInWith(next);
    await expect(signInWith(next)).rejects.toThrow('HTTP 410');
    process.kill(review.child.pid!, 'SIGINT');
    expect(await review.exited).toBe(0);
    const none = await runCli(['review', '--link'], { cwd: ws.root, stateDir: ws.stateDir });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`no review page is running for ${ws.root}`);
  });

  it('a discovery file others can read is ignored: the process serves its own page', async () => {
    const ws = cliWorkspace({ 'a.txt': 'one\n' });
    const review = start(['review'], ws);
    const [link] = await review.waitFor(LINK);
    const folder = join(ws.stateDir, 'review');
    chmodSync(join(folder, readdirSync(folder)[0]!), 0o644);
    const run = start(['write', 'a.txt', '--content', 'ONE\n', '--approve', 'web'], ws);
    const [own] = await run.waitFor(/Review changes in your browser: (\S+)/);
    expect(run.output()).toContain('can be read or written by others (mode 644); it is ignored');
    expect(own).not.toContain(link);
    await answerOnPage(LINK.exec(own)![0], { decision: 'once' });
    expect(await run.exited).toBe(0);
  });
});

describe('editgate mcp --approve web', () => {
  it('logs the page link; each change waits on the page; the tool result tells the model what the person changed', async () => {
    const ws = cliWorkspace({ 'a.ts': 'const a = 1;\n' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'mcp', ws.root, '--approve', 'web'],
      stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '', EDITGATE_STATE_DIR: ws.stateDir },
    });
    let stderr = '';
    const linked = new Promise<string>((resolve) => {
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const match = LINK.exec(stderr);
        if (match) resolve(match[0]);
      });
    });
    const client = new Client({ name: 'editgate-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    try {
      const link = await linked;
      expect(stderr).toContain('review changes in your browser');
      expect(client.getInstructions()).toContain('Approval: web');
      await client.callTool({ name: 'read_file', arguments: { file_path: 'a.ts' } });
      const called = client.callTool({
        name: 'edit_file',
        arguments: { file_path: 'a.ts', old_string: 'a = 1', new_string: 'a = 2' },
      }) as Promise<CallToolResult>;
      const url = new URL(link);
      const { port, cookie, nonce } = await signInWith(link);
      let change: { id: string } | undefined;
      while (!change) {
        const list = (
          await http(port, { path: '/api/changes', headers: { Cookie: cookie, 'X-Editgate-Nonce': nonce } })
        ).json();
        change = (list.changes as Array<{ id: string; status: string }>).find(
          (entry) => entry.status === 'pending',
        );
      }
      const headers = {
        Cookie: cookie,
        Origin: url.origin,
        'X-Editgate-Nonce': nonce,
        'Content-Type': 'application/json',
      };
      const preview = await http(port, {
        method: 'POST',
        path: `/api/changes/${change.id}/edit-preview`,
        headers,
        body: JSON.stringify({ edited: { 'a.ts': 'const a = 3;\n' } }),
      });
      expect(preview.status).toBe(200);
      const { hash } = preview.json() as { hash: string };
      const decided = await http(port, {
        method: 'POST',
        path: `/api/changes/${change.id}/decision`,
        headers,
        body: JSON.stringify({ hash, decision: 'once', edited: { 'a.ts': 'const a = 3;\n' } }),
      });
      expect(decided.status).toBe(200);
      const result = await called;
      expect(result.isError).not.toBe(true);
      const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      expect(text).toContain('The user edited your change before approving it');
      expect(text).toContain('-const a = 2;\n+const a = 3;');
      expect(readFileSync(join(ws.root, 'a.ts'), 'utf8')).toBe('const a = 3;\n');
    } finally {
      await client.close();
    }
  });
});
