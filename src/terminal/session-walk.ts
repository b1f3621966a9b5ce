/**
 * A session review in the terminal (`editgate review --session`, the chat's /review): the session's change
 * set walked hunk by hunk as `git add -p` walks one (hunk-walk.ts holds the walk's rule), with the words of
 * a review: y keeps a hunk, n reverts it (then a reason for the agent), a keeps every hunk left, d reverts
 * every hunk left, v shows the whole change set in the pager, q quits with nothing reverted. A file the
 * session created or deleted is kept or reverted whole. At the end, one summary line and a last y/n.
 *
 * Keys go through the typing guard (typing-guard.ts): a key typed before a hunk was on screen never answers
 * it. What is shown came from a model and files: paths and notes are made visible (cells.ts), the diff is
 * rendered by diff-view.ts, which marks control characters.
 */

import { sessionReviewSummary } from '../core/approval-question.js';
import type { ApprovalQuestion, Decision, HunkChoices } from '../gate/approval.js';
import { displayWidth, dropLastGrapheme, visibleText } from './cells.js';
import { paint } from './colors.js';
import { renderDiff } from './diff-view.js';
import { type Display, type DisplayOptions, resolveDisplay } from './display.js';
import { HunkWalk, type WalkPlace } from './hunk-walk.js';
import { walkHunkDiff } from './hunk-walk-view.js';
import { createKeyReader, type KeyReader } from './keys.js';
import { runPager } from './pager.js';
import { type Palette, paletteFor } from './palette.js';
import { renderRequestDiff } from './preview.js';
import { enterRawMode, type TerminalInput } from './tty-modes.js';
import { settled, TypingGuard } from './typing-guard.js';

export interface SessionWalkOptions extends DisplayOptions {
  /** Where keys come from: a stream (put in raw mode for the walk), or a reader a host already judges (the chat's). */
  input?: TerminalInput;
  keys?: KeyReader;
}

export const SESSION_WALK_HELP = [
  'y - keep this hunk',
  'n - revert this hunk (then a reason for the agent, or Enter for none)',
  'a - keep this hunk and every hunk left',
  'd - revert this hunk and every hunk left',
  'v - view the whole change set in the pager',
  'q - quit: nothing is reverted',
  '? - this help',
];

const KEYS = '[y,n,a,d,v,q,?]';

interface Walking {
  keys: KeyReader;
  guard: TypingGuard | undefined;
  options: SessionWalkOptions;
  display: Display;
  palette: Palette;
  request: ApprovalQuestion;
}

/** The person's decision on the change set (the gate's Decision), or undefined when they quit. */
export async function walkSessionReview(
  request: ApprovalQuestion,
  options: SessionWalkOptions,
): Promise<Decision | undefined> {
  const display = resolveDisplay(options);
  const palette = paletteFor(display.theme);
  const input = options.keys ? undefined : options.input;
  if (!options.keys && !input) throw new TypeError('walkSessionReview needs an input stream or a key reader');
  const restoreRaw = input ? enterRawMode(input) : () => {};
  const keys = options.keys ?? createKeyReader(input!);
  // Only a terminal has a person typing; keys from a pipe are a script's answers, in order. A host's
  // reader comes judged by its own guard.
  const guard = input?.isTTY ? new TypingGuard() : undefined;
  const walking: Walking = { keys, guard, options, display, palette, request };
  try {
    if (guard) await settled();
    return await walk(walking);
  } finally {
    if (input) keys.close();
    restoreRaw();
  }
}

async function walk(walking: Walking): Promise<Decision | undefined> {
  const { request, options, display, palette } = walking;
  const write = (line: string) => options.output.write(`${line}\n`);
  write(paint(visibleText(request.question ?? ''), palette.question, display.level));
  const hunks: HunkChoices = {};
  // Whole files first (created or deleted in the session): kept or reverted whole.
  for (const file of request.files.filter((each) => each.wholeOnly)) {
    for (const line of renderDiff(
      { path: file.path, kind: file.kind === 'read' ? 'modify' : file.kind, diff: file.diff },
      renderOptions(display),
    ))
      write(line);
    const answer = await readAnswer(walking, `${visibleText(file.wholeOnly!)}. Keep it ${KEYS}? `);
    if (answer === undefined) return undefined;
    const all = [...file.diff.hunks.keys()];
    if (answer.keep) hunks[file.path] = { accept: all, reject: [] };
    else
      hunks[file.path] = {
        accept: [],
        reject: all.map((hunk) => (answer.reason ? { hunk, reason: answer.reason } : { hunk })),
      };
  }
  const hunkWalk = new HunkWalk(request);
  for (let place = hunkWalk.current(); place; place = hunkWalk.current()) {
    showHunk(walking, place);
    const answer = await readAnswer(
      walking,
      `Keep this hunk (${place.step}/${place.steps}: hunk ${place.hunk + 1} of ${place.hunks} of ${visibleText(place.path)}) ${KEYS}? `,
      true,
    );
    if (answer === undefined) return undefined;
    if (answer.all) hunkWalk.press(answer.keep ? 'a' : 'd');
    else if (answer.keep) hunkWalk.press('y');
    else {
      hunkWalk.press('n');
      hunkWalk.reason(answer.reason ?? '');
    }
  }
  Object.assign(hunks, hunkWalk.decision().hunks);
  const summary = sessionReviewSummary(request, hunks);
  write(paint(visibleText(summary), palette.status, display.level));
  if (!Object.values(hunks).some((choice) => (choice.reject ?? []).length > 0)) return 'once';
  const sure = await readAnswer(walking, 'Revert these now [y,n]? ', false, true);
  if (sure === undefined || !sure.keep) return undefined;
  return { allow: 'once', hunks };
}

function renderOptions(display: Display) {
  return { width: display.width, color: display.level, theme: display.theme, tabWidth: display.tabWidth };
}

/** The hunk on its own under its file's header (hunk-walk-view.ts: as every walk shows it). */
function showHunk(walking: Walking, place: WalkPlace): void {
  const { request, options, display } = walking;
  const lines = walkHunkDiff(request, place, display, display.width);
  options.output.write(`${lines.join('\n')}\n`);
}

interface Answer {
  keep: boolean;
  /** a or d: this one and every one left. */
  all?: boolean;
  reason?: string;
}

/** Reads y/n (and a/d, v, ?, q) through the typing guard; undefined: quit. */
async function readAnswer(
  walking: Walking,
  prompt: string,
  allowAll = false,
  yesNo = false,
): Promise<Answer | undefined> {
  const { keys, guard, options, display, palette } = walking;
  const show = () => {
    options.output.write(paint(prompt, palette.question, display.level));
    guard?.shown();
  };
  show();
  for (;;) {
    const { key, at } = await keys.nextTimed();
    const role = guard?.key(at) ?? 'answer';
    if (key.name === 'ctrl-c' || key.name === 'ctrl-d' || key.name === 'eof' || key.name === 'escape') {
      options.output.write('\n');
      return undefined;
    }
    if (role !== 'answer' || key.name !== 'char') continue;
    const char = key.char;
    if (char === 'y') {
      options.output.write('y\n');
      return { keep: true };
    }
    if (char === 'n') {
      options.output.write('n\n');
      if (yesNo) return { keep: false };
      guard?.hidden();
      const reason = await readReason(walking);
      if (reason === undefined) return undefined;
      return reason ? { keep: false, reason } : { keep: false };
    }
    if (yesNo) continue;
    if (char === 'q') {
      options.output.write('q\nNothing was reverted.\n');
      return undefined;
    }
    if ((char === 'a' || char === 'd') && allowAll) {
      options.output.write(`${char}\n`);
      if (char === 'a') return { keep: true, all: true };
      guard?.hidden();
      const reason = await readReason(walking);
      if (reason === undefined) return undefined;
      return reason ? { keep: false, all: true, reason } : { keep: false, all: true };
    }
    if (char === '?') {
      options.output.write(`?\n${SESSION_WALK_HELP.map((line) => `  ${line}`).join('\n')}\n`);
      show();
    } else if (char === 'v') {
      options.output.write('v\n');
      guard?.openedByThisRun();
      await runPager((width) => renderRequestDiff(walking.request, display, width), {
        output: options.output,
        keys,
        ...(guard ? { guard } : {}),
        color: display.level,
        theme: display.theme,
      });
      show();
    }
  }
}

/** A reason for the agent, typed on one line (Enter ends it; empty for none); undefined on Ctrl-C. */
async function readReason(walking: Walking): Promise<string | undefined> {
  const { keys, guard, options, display, palette } = walking;
  const label = 'Why revert it (the agent reads this; Enter for no reason): ';
  const live = options.output.isTTY === true;
  options.output.write(live ? paint(label, palette.question, display.level) : `${label}\n`);
  let text = '';
  for (;;) {
    const { key, at } = await keys.nextTimed();
    guard?.key(at);
    if (key.name === 'enter') {
      if (live) options.output.write('\n');
      guard?.shown();
      return text.trim();
    }
    if (key.name === 'ctrl-c' || key.name === 'ctrl-d' || key.name === 'eof' || key.name === 'escape') {
      options.output.write('\n');
      return undefined;
    }
    if (key.name === 'backspace') text = dropLastGrapheme(text);
    else if (key.name === 'char') text += key.char;
    else continue;
    if (live) {
      const room = Math.max(1, display.width - displayWidth(label) - 1);
      const shown = visibleText(text);
      options.output.write(`\r\x1b[2K${paint(label, palette.question, display.level)}${shown.slice(-room)}`);
    }
  }
}
