/**
 * `editgate review --session` (#30 item 4): a run auto-approved with --yes changes three places of a file;
 * the session review reverts the second, with a reason, in a real pty (the terminal walk) and through the
 * review page's JSON API (--approve web). The file then holds hunks 1 and 3 byte for byte, the audit log has
 * the person's revert with the reason, and `editgate undo` puts hunk 2 back. Bad inputs: an unknown
 * session, a session whose changes were all reverted, a file deleted since, a hunk already reverted.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TYPING_PAUSE_MS } from '../../src/terminal/typing-guard.js';
import { ensureBuilt, MAIN } from '../built-cli.js';
import { docBlock, transcriptProblem } from '../readme/blocks.js';
import { tempFolder } from '../temp-folder.js';
import { answerOnPage, LINK } from '../web/page-api.js';
import { type PtyRun, spawnCli, typeAcross } from './pty.js';
import { cliWorkspace, runCli } from './run-cli.js';

beforeAll(ensureBuilt, 120_000);

const runs: PtyRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});

const ORIGINAL = `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
const ALL_THREE = ORIGINAL.replace('line 3\n', 'line three\n')
  .replace('line 15\n', 'line fifteen\n')
  .replace('line 27\n', 'line twenty-seven\n');
const HUNKS_1_AND_3 = ALL_THREE.replace('line fifteen\n', 'line 15\n');

/** A workspace where `editgate write --yes` changed three places of a.txt (one session), audited. */
async function autoApprovedRun() {
  const audit = join(tempFolder('editgate-audit-'), 'audit.jsonl');
  const ws = cliWorkspace({ 'a.txt': ORIGINAL, 'editgate.config.json': JSON.stringify({ auditLog: audit }) });
  const written = await runCli(['write', 'a.txt', '--yes'], {
    cwd: ws.root,
    stateDir: ws.stateDir,
    stdin: ALL_THREE,
  });
  expect(written.code, written.stderr).toBe(0);
  expect(readFileSync(join(ws.root, 'a.txt'), 'utf8')).toBe(ALL_THREE);
  return { ...ws, audit, text: () => readFileSync(join(ws.root, 'a.txt'), 'utf8') };
}

/** The CLI run in the workspace's root, with no terminal. */
function inRoot(args: string[], ws: { root: string; stateDir: string }) {
  return runCli(args, { cwd: ws.root, stateDir: ws.stateDir });
}

function lastAudit(path: string): Record<string, unknown> {
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  return JSON.parse(lines.at(-1)!);
}

function review(args: string[], ws: { root: string; stateDir: string }): PtyRun {
  const run = spawnCli(['review', ...args], { cwd: ws.root, stateDir: ws.stateDir, cols: 160, rows: 40 });
  runs.push(run);
  return run;
}

describe('editgate review --session in the terminal', () => {
  it('lists the session, walks its three hunks, reverts hunk 2 with a reason; undo puts it back', async () => {
    const ws = await autoApprovedRun();
    const listed = await inRoot(['review', '--session'], ws);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      /cli-\S+ {2}cli \(editgate write\) {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}1 file, 1 change/,
    );

    const run = review(['--session', 'last'], ws);
    await run.waitForText('Keep this hunk (1/3:');
    await run.answer('y');
    await run.waitForText('Keep this hunk (2/3:');
    expect(run.text()).toMatch(/\+ line fifteen/);
    await run.answer('n');
    await run.waitForText('Why revert it');
    run.write('fifteen stays a number\r');
    await run.waitForText('Keep this hunk (3/3:');
    await run.answer('y');
    await run.waitForText('Revert these now');
    expect(run.text()).toContain('a.txt: revert hunk 2 (fifteen stays a number); keep 1, 3');
    await run.answer('y');
    expect(await run.exited()).toBe(0);
    expect(run.text()).toContain('a.txt: reverted hunk 2 (fifteen stays a number) of 3');
    // docs/guides/session-review.md shows this walk: its transcript is this run's, line for line.
    const sessionId = (line: string) => line.replace(/cli-\d{8}T\d{6}-[0-9a-f]+/g, 'cli-ID');
    expect(
      transcriptProblem(
        docBlock('docs/guides/session-review.md', 'Revert these now [y,n]?'),
        run.text(),
        sessionId,
      ),
    ).toBeUndefined();
    expect(readFileSync(join(ws.root, 'a.txt')).equals(Buffer.from(HUNKS_1_AND_3))).toBe(true);
    expect(lastAudit(ws.audit)).toMatchObject({
      tool: 'review_session',
      path: 'a.txt',
      decision: 'once',
      decidedBy: 'user',
      stats: { added: 1, removed: 1 },
    });
    expect(String(lastAudit(ws.audit).reason)).toContain(
      'reverted hunk 2 of 3 (hunk 2: fifteen stays a number)',
    );
    // The reasons wait for the agent in the session's note.
    const { id } = JSON.parse((await inRoot(['review', '--list', '--json'], ws)).stdout.split('\n')[0]!);
    const note = readFileSync(join(ws.stateDir, 'sessions', id, 'note.txt'), 'utf8');
    expect(note).toContain(
      "a.txt hunk 2 of 3 (line 15 as it is now): the user's reason: fifteen stays a number",
    );

    // The hunk already reverted is not offered again: the session now has two.
    const again = review(['--session', 'last'], ws);
    await again.waitForText('Keep this hunk (1/2:');
    await again.answer('q');
    expect(await again.exited()).toBe(0);

    const undone = await inRoot(['undo', 'a.txt', '--yes'], ws);
    expect(undone.code, undone.stderr).toBe(0);
    expect(ws.text()).toBe(ALL_THREE);
  }, 60_000);

  it("keys typed before a hunk appears never answer it: a sentence of the walk's keys typed across the first hunk and across the next answers nothing; the first key after a pause does", async () => {
    const ws = await autoApprovedRun();
    const sentence = 'yes, and do view a diff, quit now? any news, and quickly revert a dozen';
    const expectTyped = (typed: Awaited<ReturnType<typeof typeAcross>>) => {
      // Typing speed held, the hunk came up mid-sentence, and the sentence went on for seconds after it.
      expect(typed.longestGap, 'the typist itself stalled').toBeLessThan(TYPING_PAUSE_MS);
      expect(typed.before).toBeGreaterThan(0);
      expect(typed.msAfter).toBeGreaterThan(2000);
    };
    const nothingAnswered = (shown: string) => {
      expect(run.text()).not.toMatch(/Why revert it|Revert these now|Nothing was reverted|- keep this hunk/);
      expect(run.text()).toContain(shown);
      // The pager (v) never opened.
      expect(run.raw()).not.toContain('\x1b[?1049h');
      expect(ws.text()).toBe(ALL_THREE);
    };
    // Typing begins as the command starts (about a second before the first hunk) and goes on past it.
    const run = review(['--session', 'last'], ws);
    expectTyped(await typeAcross(run, sentence, run.whenOutput('Keep this hunk (1/3:')));
    nothingAnswered('Keep this hunk (1/3:');
    expect(run.text()).not.toContain('Keep this hunk (2/3:');
    await run.answer('y');
    // Typed right after the y, so the run began before hunk 2 was drawn, and for seconds after.
    expectTyped(await typeAcross(run, sentence, run.whenOutput('Keep this hunk (2/3:')));
    nothingAnswered('Keep this hunk (2/3:');
    expect(run.text()).not.toContain('Keep this hunk (3/3:');
    await run.answer('n');
    await run.waitForText('Why revert it');
    run.write('fifteen stays a number\r');
    await run.waitForText('Keep this hunk (3/3:');
    await run.answer('y');
    await run.waitForText('Revert these now');
    await run.answer('y');
    expect(await run.exited()).toBe(0);
    expect(readFileSync(join(ws.root, 'a.txt')).equals(Buffer.from(HUNKS_1_AND_3))).toBe(true);
  }, 90_000);

  it('d reverts every hunk; then the session has nothing left to review', async () => {
    const ws = await autoApprovedRun();
    const run = review(['--session', 'last'], ws);
    await run.waitForText('Keep this hunk (1/3:');
    await run.answer('d');
    await run.waitForText('Why revert it');
    run.write('\r');
    await run.waitForText('Revert these now');
    await run.answer('y');
    expect(await run.exited()).toBe(0);
    expect(ws.text()).toBe(ORIGINAL);
    const after = await inRoot(['review', '--session', 'last'], ws);
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(
      /Session cli-\S+ has no changes left to review: its changes to 1 file were undone or reverted since\./,
    );
  }, 60_000);

  it('q quits with nothing reverted', async () => {
    const ws = await autoApprovedRun();
    const run = review(['--session', 'last'], ws);
    await run.waitForText('Keep this hunk (1/3:');
    await run.answer('q');
    expect(await run.exited()).toBe(0);
    expect(run.text()).toContain('Nothing was reverted.');
    expect(ws.text()).toBe(ALL_THREE);
  }, 60_000);
});

describe('editgate review --session: bad input', () => {
  it('an unknown session id: exit 1, naming the sessions there are', async () => {
    const ws = await autoApprovedRun();
    const result = await inRoot(['review', '--session', 'no-such-session'], ws);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /There is no session "no-such-session"\. Recent ones: cli-\S+ \(editgate review --session --list shows them all\)\./,
    );
    expect(ws.text()).toBe(ALL_THREE);
  });

  it('no session at all here: says so', async () => {
    const ws = cliWorkspace({ 'a.txt': ORIGINAL });
    const last = await inRoot(['review', '--session', 'last'], ws);
    expect(last.code).toBe(1);
    expect(last.stderr).toContain('No session has changed a file here yet');
    const listed = await inRoot(['review', '--list'], ws);
    expect(listed.stdout).toContain('No session has changed a file under');
  });

  it('a file deleted since: refused for that file, nothing written', async () => {
    const ws = await autoApprovedRun();
    rmSync(join(ws.root, 'a.txt'));
    const result = await inRoot(['review', '--session', 'last'], ws);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'a.txt: it was deleted since the session changed it, so its changes cannot be reverted here.',
    );
  });

  it('no terminal and no --approve web: says to use the page', async () => {
    const ws = await autoApprovedRun();
    const result = await inRoot(['review', '--session', 'last'], ws);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'there is no terminal to walk the hunks in; review on the web page with --approve web',
    );
  });
});

/** `editgate review --session last --approve web`, running, with the page's link it printed. */
function reviewOnPage(ws: { root: string; stateDir: string }) {
  const child = spawn(process.execPath, [MAIN, 'review', '--session', 'last', '--approve', 'web'], {
    cwd: ws.root,
    env: { ...process.env, EDITGATE_STATE_DIR: ws.stateDir, BROWSER: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const link = new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const found = LINK.exec(stderr);
      if (found) resolve(found[0]);
    });
    child.on('exit', () => reject(new Error(`exited before printing a link:\n${stderr}`)));
  });
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  // Ctrl-C where it runs (it was started in a process group of its own).
  const interrupt = () => process.kill(-child.pid!, 'SIGINT');
  return { link, exited, interrupt, output: () => ({ stdout, stderr }) };
}

describe('editgate review --session --approve web (the page JSON API)', () => {
  it('hunk 2 left out with a reason: reverted, 1 and 3 kept byte for byte; a stale second answer is refused with what to do', async () => {
    const ws = await autoApprovedRun();
    const page = reviewOnPage(ws);
    const link = await page.link;
    const { answer } = await answerOnPage(link, {
      decision: 'once',
      hunks: { 'a.txt': { accept: [0, 2], reject: [{ hunk: 1, reason: 'fifteen stays a number' }] } },
    });
    expect(answer.status, answer.body).toBe(200);
    expect(await page.exited, page.output().stderr).toBe(0);
    expect(page.output().stdout).toContain('a.txt: reverted hunk 2 (fifteen stays a number) of 3');
    expect(readFileSync(join(ws.root, 'a.txt')).equals(Buffer.from(HUNKS_1_AND_3))).toBe(true);
    expect(lastAudit(ws.audit)).toMatchObject({ tool: 'review_session', decidedBy: 'user' });

    // A file changed while the page was open: the page refuses the answer (409, with what to do; a denial
    // would revert everything), nothing is reverted and nothing is lost. The page compares each file with
    // what the session left (its base), not with what it found on the question's arrival, so a change
    // made before it first looked is seen too.
    const second = reviewOnPage(ws);
    const link2 = await second.link;
    writeFileSync(join(ws.root, 'a.txt'), `${HUNKS_1_AND_3}one more line\n`);
    const { answer: late } = await answerOnPage(link2, { decision: 'deny' });
    expect(late.status, late.body).toBe(409);
    expect(late.body).toContain('A file of this review changed on disk after it was shown');
    expect(late.body).toMatch(/review the session again \(editgate review --session cli-[\w-]+\)/);
    second.interrupt();
    expect(await second.exited).not.toBe(0);
    expect(ws.text()).toBe(`${HUNKS_1_AND_3}one more line\n`);
  }, 60_000);
});
