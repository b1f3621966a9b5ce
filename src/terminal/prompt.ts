import { approvalQuestion, isReadQuestion } from '../core/approval-question.js';
import { findingsLines } from '../core/finding-words.js';
import { pathInRoot } from '../core/root-named.js';
import type { ApprovalQuestion, Approver, Decision, HunkDecision } from '../gate/approval.js';
import type { AnsweredElsewhere } from '../gate/first-answer.js';
import { displayWidth, dropLastGrapheme, toCells, visibleText } from './cells.js';
import { paint } from './colors.js';
import { type Display, type DisplayOptions, resolveDisplay } from './display.js';
import { editableText, editInEditor, withYourVersion } from './edit-in-editor.js';
import { HunkWalk, offersWalk, WALK_HELP, WALK_KEY, type WalkPlace, walkUnavailable } from './hunk-walk.js';
import {
  WALK_CHOICES,
  WALK_CONFIRM_CHOICES,
  WALK_REASON_LABEL,
  walkConfirmQuestion,
  walkHunkDiff,
  walkQuestion,
} from './hunk-walk-view.js';
import { createKeyReader, type KeyReader, type TimedKey } from './keys.js';
import { runPager } from './pager.js';
import { type Palette, paletteFor } from './palette.js';
import { formatCallLine, highlighterFor, renderRequestDiff } from './preview.js';
import { enterRawMode, type TerminalInput } from './tty-modes.js';
import { settled, TypingGuard } from './typing-guard.js';

/**
 * The approval question in a terminal: the call on one line, the diff, then one key to answer.
 *
 *   y  yes                     a  yes, and don't ask again for this file this session
 *   A  yes to every edit this session
 *   n  no                      r  no, and type a reason the agent will read
 *   +  yes, and type a note the agent will read (where the face offers it: `notes`)
 *   e  edit the proposed new text in $VISUAL/$EDITOR, see the diff of your version, then write it or not
 *      (where the face offers it: `edits`; one file whose new text is held)
 *   h  hunk by hunk, as `git add -p`: y/n per hunk (a reason for a no), then one line of what will be
 *      written, then y to write it (a change of two hunks or more; files that cannot be split say why)
 *   v  view the whole diff (full screen), then come back to the question
 *
 * Ctrl-C and Esc mean no; so does the input ending. Keys are read in raw mode, restored afterwards. At a
 * terminal, only the first key after a pause answers (typing-guard.ts): keys typed before the question was
 * on screen, and the rest of a run of fast keys that began before it, are typing, not answers.
 *
 * The approver's `signal` takes the question back: the keys end as on EOF (an open pager closes) and the
 * terminal is given back. Where another front end asks the same question at the same time (the web review
 * page, see firstAnswer), the first answer wins: the signal's reason is then an AnsweredElsewhere, and the
 * prompt says who answered and how, and returns that decision; any other reason is what it rejects with.
 */

export interface TerminalApproverOptions extends DisplayOptions {
  input: TerminalInput;
  /**
   * Offer "this file" and "every edit" for the session (a, A). Default true; false where the session is one
   * change (a single CLI command), so no choice is offered that would mean nothing.
   */
  sessionGrants?: boolean;
  /**
   * Offer + (yes, with a note for the agent). Default false: only where the answer's note reaches the
   * model with the result (the gate's own tools do; a proxy returns its upstream server's result).
   */
  notes?: boolean;
  /**
   * Offer e (edit the proposed text in the person's editor, then allow their version). Default false: only
   * where the gate writes the answer's text (a proxy's upstream server writes its own).
   */
  edits?: boolean;
  /**
   * Whether an agent reads a reason given with a no. Default true; false for a plain CLI command, where
   * the reason is only printed, so the choice does not promise a reader that is not there.
   */
  agentReadsReasons?: boolean;
}

export interface Choice {
  key: string;
  label: string;
}

/** Fewer diff rows than this and the prompt would show too little to judge; the pager is one key away. */
const MIN_DIFF_ROWS = 3;

/** Said once per question when keys were taken for typing (the person may wonder why `y` did nothing). */
export const STILL_TYPING_HINT =
  'Keys typed fast, or before the question appeared, are not answers: pause, then press a key.';

export function createTerminalApprover(options: TerminalApproverOptions): Approver {
  // One question at a time: concurrent requests wait their turn instead of fighting over the keyboard.
  let queue: Promise<unknown> = Promise.resolve();
  return (request, context = {}) => {
    const result = queue.then(() => {
      // Answered elsewhere (or cancelled) while waiting its turn: never shown.
      context.signal?.throwIfAborted();
      return ask(request, options, context.signal);
    });
    queue = result.catch(() => undefined);
    return result;
  };
}

async function ask(
  request: ApprovalQuestion,
  options: TerminalApproverOptions,
  signal?: AbortSignal,
): Promise<Decision> {
  const { output, input } = options;
  const display = resolveDisplay(options);
  const palette = paletteFor(display.theme);
  const highlighter = await highlighterFor(request, display);
  const render = (width: number) => renderRequestDiff(request, display, width, highlighter);
  const diff = render(display.width);

  const sessionGrants = options.sessionGrants !== false;
  const choices: Choice[] = [{ key: 'y', label: 'yes' }];
  if (sessionGrants) {
    choices.push(
      {
        key: 'a',
        label:
          request.files.length > 1
            ? `yes, and don't ask again for these ${request.files.length} files`
            : "yes, and don't ask again for this file",
      },
      { key: 'A', label: 'yes to every edit this session' },
    );
  }
  const reasonLabel =
    options.agentReadsReasons === false ? 'no, with a reason' : 'no, with a reason for the agent';
  choices.push({ key: 'n', label: 'no' }, { key: 'r', label: reasonLabel });
  if (options.notes && !isReadQuestion(request))
    choices.push({
      key: '+',
      label: options.agentReadsReasons === false ? 'yes, with a note' : 'yes, with a note for the agent',
    });
  if (options.edits && editableText(request) !== undefined)
    choices.push({ key: 'e', label: 'edit it in your editor' });
  if (offersWalk(request)) choices.push({ key: WALK_KEY, label: 'hunk by hunk' });
  if (diff.length > 0) choices.push({ key: 'v', label: 'view the whole diff' });
  const question = [paint(questionText(request), palette.question, display.level)];
  question.push(...choiceRows(choices, display, palette));

  // What the person must know about the change (e.g. that it is large) comes before the diff, always.
  const lines = [formatCallLine(request, display), ...notesOf(request, display, palette)];
  const room = Math.max(MIN_DIFF_ROWS, display.height - lines.length - question.length - 1);
  if (diff.length <= room) lines.push(...diff);
  else {
    // Never silently cut: say how much is hidden and how to see it.
    const shown = Math.max(MIN_DIFF_ROWS, room - 1);
    lines.push(...diff.slice(0, shown));
    const hint = `… ${diff.length - shown} more lines. Press v to view the whole diff.`;
    lines.push(paint(hint, palette.note, display.level));
  }
  lines.push(...question);

  const restoreRaw = enterRawMode(input);
  const keys = cancellableKeys(createKeyReader(input), signal);
  // Only a terminal has a person typing; keys from a pipe are a script's answers, given in order.
  const guard = input.isTTY ? new TypingGuard() : undefined;
  try {
    // Keys typed before the question was on screen (while the agent was still talking) are read now,
    // before it is shown, and are typing to the guard.
    if (guard) await settled();
    output.write(`${lines.join('\n')}\n`);
    guard?.shown();
    const asking: Asking = {
      keys,
      guard,
      hinted: false,
      request,
      options,
      display,
      palette,
      render,
      question,
    };
    const decision = await readDecision(asking);
    if (signal?.aborted) {
      // The keys ended because the question was taken back (the pager, if open, has closed).
      const elsewhere = answeredElsewhere(signal.reason);
      if (!elsewhere) throw signal.reason;
      const said = describeDecision(elsewhere.decision, request, display, palette);
      output.write(
        `${said} ${paint(`(answered ${visibleText(elsewhere.by)})`, palette.note, display.level)}\n`,
      );
      return elsewhere.decision;
    }
    output.write(`${describeDecision(decision, request, display, palette)}\n`);
    return decision;
  } finally {
    keys.close();
    restoreRaw();
  }
}

/**
 * Each file's note (in a change set, named by its file) and what the checks found (which rule asked, each
 * finding), one styled line each (wrapped by the terminal).
 */
function notesOf(request: ApprovalQuestion, display: Display, palette: Palette): string[] {
  const several = request.files.length > 1;
  const notes = request.files.flatMap((file) =>
    file.note ? [several ? `${pathInRoot(file.path, file.root)}: ${file.note}` : file.note] : [],
  );
  notes.push(...findingsLines(request.findings));
  return notes.map((note) => paint(visibleText(note), palette.note, display.level));
}

/** Keys that end (as an input does) when `signal` aborts, so every reader of them unwinds as on EOF. */
function cancellableKeys(keys: KeyReader, signal: AbortSignal | undefined): KeyReader {
  if (!signal) return keys;
  const eof = (): TimedKey => ({ key: { name: 'eof' }, at: performance.now() });
  const ended = new Promise<TimedKey>((resolve) => {
    if (signal.aborted) resolve(eof());
    else signal.addEventListener('abort', () => resolve(eof()), { once: true });
  });
  const nextTimed = () => (signal.aborted ? Promise.resolve(eof()) : Promise.race([keys.nextTimed(), ended]));
  return {
    next: () => nextTimed().then((timed) => timed.key),
    nextTimed,
    close: () => keys.close(),
  };
}

/** The AnsweredElsewhere in an abort reason (the terminal takes gate's types only, so it checks itself). */
function answeredElsewhere(reason: unknown): AnsweredElsewhere | undefined {
  if (!reason || typeof reason !== 'object') return undefined;
  const { by, decision } = reason as Partial<AnsweredElsewhere>;
  return typeof by === 'string' && decision !== undefined ? { by, decision } : undefined;
}

/** One question being asked: its keys (judged by the guard at a terminal) and how it is drawn. */
interface Asking {
  keys: KeyReader;
  guard: TypingGuard | undefined;
  /** STILL_TYPING_HINT was said. */
  hinted: boolean;
  request: ApprovalQuestion;
  options: TerminalApproverOptions;
  display: Display;
  palette: Palette;
  render: (width: number) => string[];
  /** The question and its keys, shown again when the person comes back to it from their editor. */
  question: string[];
}

async function readDecision(asking: Asking): Promise<Decision> {
  const { keys, guard, request, options, display, palette, render } = asking;
  for (;;) {
    const { key, at } = await keys.nextTimed();
    const role = guard?.key(at) ?? 'answer';
    // Esc, Ctrl-C and the end of input only ever refuse: they need no pause.
    if (key.name === 'escape' || key.name === 'ctrl-c' || key.name === 'ctrl-d' || key.name === 'eof') {
      return 'deny';
    }
    if (role !== 'answer') {
      if (!asking.hinted && key.name === 'char') {
        asking.hinted = true;
        options.output.write(`${paint(STILL_TYPING_HINT, palette.note, display.level)}\n`);
      }
      continue;
    }
    if (key.name !== 'char') continue;
    switch (key.char) {
      case 'y':
        return 'once';
      case 'a':
        if (options.sessionGrants === false) break;
        return 'file';
      case 'A':
        if (options.sessionGrants === false) break;
        return 'all';
      case 'n':
        return 'deny';
      case 'r': {
        const reason = await readLine(asking, 'Reason (Enter to send, Esc to go back): ');
        // Esc went back to the question: it is still open, and any answer may follow (after a pause).
        if (reason === BACK) {
          guard?.shown();
          break;
        }
        return reason ? { deny: reason } : 'deny';
      }
      case '+': {
        if (!options.notes || isReadQuestion(request)) break;
        const noteFor = options.agentReadsReasons === false ? 'Note' : 'Note for the agent';
        const note = await readLine(asking, `${noteFor} (Enter to approve, Esc to go back): `);
        if (note === BACK) {
          guard?.shown();
          break;
        }
        // Ctrl-C or the input ending while typing the note: no, as they are everywhere else.
        if (note === undefined) return 'deny';
        return note ? { allow: 'once', reason: note } : 'once';
      }
      case 'e': {
        const proposed = options.edits ? editableText(request) : undefined;
        if (proposed === undefined) break;
        const yours = await editThenConfirm(asking, proposed);
        if (yours === BACK) {
          options.output.write(`${asking.question.join('\n')}\n`);
          guard?.shown();
          break;
        }
        if (yours === undefined) return 'deny';
        return { allow: 'once', edited: { [request.files[0]!.path]: yours } };
      }
      case WALK_KEY: {
        if (!offersWalk(request)) break;
        const walked = await walkHunks(asking);
        if (walked === BACK) {
          options.output.write(`${asking.question.join('\n')}\n`);
          guard?.shown();
          break;
        }
        if (walked === undefined) return 'deny';
        return walked;
      }
      case 'v':
        if (!isReadQuestion(request)) {
          // The pager re-renders at its own width (and on resize); on q the main screen, with the
          // question, comes back as it was: on screen anew, so the pager's keys do not answer it.
          guard?.openedByThisRun();
          await runPager(render, {
            output: options.output,
            keys,
            ...(guard ? { guard } : {}),
            color: display.level,
            theme: display.theme,
            ...(options.width !== undefined ? { width: options.width } : {}),
            ...(options.height !== undefined ? { height: options.height } : {}),
          });
          guard?.shown();
        }
        break;
      default:
        break;
    }
  }
}

/**
 * e: the proposed text in the person's editor; what they saved is shown as a diff against the file, and
 * asked once more: y writes their version (returned), e edits it again, n or Esc go back to the question
 * (BACK), Ctrl-C or the input ending refuse (undefined). An editor that fails, or a text saved unchanged,
 * goes back to the question with a note.
 */
async function editThenConfirm(asking: Asking, proposed: string): Promise<string | undefined | typeof BACK> {
  const { guard, request, options, display, palette } = asking;
  const { output } = options;
  const note = (text: string) => output.write(`${paint(text, palette.note, display.level)}\n`);
  let text = proposed;
  for (;;) {
    const outcome = editInEditor(text, request.files[0]!.path, options);
    if (outcome.kind === 'failed' || (outcome.kind === 'unchanged' && text === proposed)) {
      note(
        outcome.kind === 'failed'
          ? `Back to the question: ${visibleText(outcome.reason)}.`
          : 'Back to the question: the text was saved unchanged.',
      );
      return BACK;
    }
    if (outcome.kind === 'edited') text = outcome.text;
    const mine = withYourVersion(request, text);
    const highlighter = await highlighterFor(mine, display);
    const lines = [
      ...notesOf(mine, display, palette),
      ...renderRequestDiff(mine, display, display.width, highlighter),
      paint(
        `Write your version of ${visibleText(pathInRoot(request.files[0]!.path, request.files[0]!.root))}?`,
        palette.question,
        display.level,
      ),
      ...choiceRows(
        [
          { key: 'y', label: 'yes, write your version' },
          { key: 'e', label: 'edit it again' },
          { key: 'n', label: 'no, back to the question' },
        ],
        display,
        palette,
      ),
    ];
    output.write(`${lines.join('\n')}\n`);
    guard?.shown();
    const answer = await readConfirm(asking);
    if (answer !== 'e') return answer === 'y' ? text : answer;
  }
}

/**
 * h: the hunks one by one (hunk-walk.ts), each drawn alone with the walk's keys, and each key the first
 * after a pause (the typing guard: a key typed fast after the last answer is not the next one's). n asks a
 * reason for the agent (Enter for none; Esc too). After the last hunk, the line of what will be written:
 * y answers with it; n, q or Esc go back to the question (BACK), as q does mid-walk; Ctrl-C or the input
 * ending refuse (undefined). Where the change cannot be split it says why and goes back.
 */
async function walkHunks(asking: Asking): Promise<HunkDecision | undefined | typeof BACK> {
  const { guard, request, options, display, palette } = asking;
  const { output } = options;
  const note = (text: string) => output.write(`${paint(text, palette.note, display.level)}\n`);
  const unavailable = walkUnavailable(request);
  if (unavailable) {
    note(`Not hunk by hunk: ${visibleText(unavailable)}.`);
    guard?.shown();
    // Nothing was redrawn: the question's keys are still on screen, and answer as before.
    return BACK;
  }
  const walk = new HunkWalk(request);
  const highlighter = await highlighterFor(request, display);
  const ask = (lines: string[]) => {
    output.write(`${lines.join('\n')}\n`);
    guard?.shown();
  };
  // Each hunk is drawn ahead while the person reads the one before (their next key comes after a pause),
  // so a key is answered without waiting for the diff view (syntax colours take a while on a big hunk).
  const drawn = new Map<number, string[]>();
  const hunkLines = (place: WalkPlace) => {
    let lines = drawn.get(place.step);
    if (!lines) {
      lines = [
        ...walkHunkDiff(request, place, display, display.width, highlighter),
        paint(walkQuestion(request, place), palette.question, display.level),
        ...choiceRows(WALK_CHOICES, display, palette),
      ];
      drawn.set(place.step, lines);
    }
    return lines;
  };
  const askHunk = () => {
    const place = walk.current()!;
    ask(hunkLines(place));
    drawn.delete(place.step);
    setImmediate(() => {
      const next = walk.upcoming();
      if (next && walk.current()?.step === place.step) hunkLines(next);
    });
  };
  askHunk();
  for (;;) {
    const key = await readAnswerKey(asking);
    if (key === 'stop') return undefined;
    if (key === 'escape') return BACK;
    let event = walk.press(key);
    if (event === 'help') {
      ask([...WALK_HELP.map((line) => `  ${line}`), ...choiceRows(WALK_CHOICES, display, palette)]);
      continue;
    }
    if (event === 'back') return BACK;
    if (event === 'ignored') continue;
    if (event === 'reason') {
      const reason = await readLine(asking, WALK_REASON_LABEL);
      if (reason === undefined) return undefined;
      event = walk.reason(reason === BACK ? '' : reason);
    }
    if (event === 'next') {
      askHunk();
      continue;
    }
    ask([
      paint(walkConfirmQuestion(walk), palette.question, display.level),
      ...choiceRows(WALK_CONFIRM_CHOICES, display, palette),
    ]);
    for (;;) {
      const answer = await readAnswerKey(asking);
      if (answer === 'stop') return undefined;
      if (answer === 'y') return walk.decision();
      if (answer === 'n' || answer === 'q' || answer === 'escape') return BACK;
    }
  }
}

/**
 * The next key that answers (the guard's first key after a pause), as its character; 'escape', or 'stop'
 * for Ctrl-C and the input ending. Keys of a typing run are skipped, with the hint said once.
 */
async function readAnswerKey(asking: Asking): Promise<string> {
  const { keys, guard, options, display, palette } = asking;
  for (;;) {
    const { key, at } = await keys.nextTimed();
    const role = guard?.key(at) ?? 'answer';
    if (key.name === 'ctrl-c' || key.name === 'ctrl-d' || key.name === 'eof') return 'stop';
    if (key.name === 'escape') return 'escape';
    if (key.name !== 'char') continue;
    if (role !== 'answer') {
      if (!asking.hinted) {
        asking.hinted = true;
        options.output.write(`${paint(STILL_TYPING_HINT, palette.note, display.level)}\n`);
      }
      continue;
    }
    return key.char;
  }
}

/** The key that answers "Write your version?": y, e, n / Esc (BACK), or undefined for no at all. */
async function readConfirm(asking: Asking): Promise<'y' | 'e' | undefined | typeof BACK> {
  const { keys, guard } = asking;
  for (;;) {
    const { key, at } = await keys.nextTimed();
    const role = guard?.key(at) ?? 'answer';
    if (key.name === 'ctrl-c' || key.name === 'ctrl-d' || key.name === 'eof') return undefined;
    if (key.name === 'escape') return BACK;
    if (role !== 'answer' || key.name !== 'char') continue;
    if (key.char === 'y' || key.char === 'e') return key.char;
    if (key.char === 'n') return BACK;
  }
}

/** readLine's answer when Esc took the person back to the question. */
const BACK = Symbol('back to the question');

/**
 * A one-line editor for the reason (after r) or the note (after +): characters, Backspace, Ctrl-U (clear),
 * Ctrl-W (last word), Enter to send. Esc goes back to the question (the person may have pressed the key by
 * mistake); Ctrl-C or the input ending give undefined: the line is cancelled, and the change refused.
 */
async function readLine(asking: Asking, label: string): Promise<string | undefined | typeof BACK> {
  const { keys, guard, options, display, palette } = asking;
  const { output } = options;
  const painted = paint(label, palette.question, display.level);
  // Only a terminal can redraw the line; elsewhere the reason shows once, in the answer line.
  const live = output.isTTY === true;
  let text = '';
  const redraw = () => {
    if (!live) return;
    const room = Math.max(1, display.width - displayWidth(label) - 1);
    const cells = toCells(text);
    let used = 0;
    let start = cells.length;
    while (start > 0 && used + cells[start - 1]!.width <= room) used += cells[--start]!.width;
    const tail = cells
      .slice(start)
      .map((cell) => cell.text)
      .join('');
    output.write(`\r\x1b[2K${painted}${tail}`);
  };
  output.write(live ? painted : `${label}\n`);
  for (;;) {
    const { key, at } = await keys.nextTimed();
    // The line is typed for the line the person opened; the guard only keeps count of the run.
    guard?.key(at);
    if (key.name === 'enter') {
      if (live) output.write('\n');
      return text.trim();
    }
    if (key.name === 'escape') {
      if (live) output.write('\n');
      output.write(`${paint('Back to the question.', palette.note, display.level)}\n`);
      return BACK;
    }
    if (key.name === 'ctrl-c' || key.name === 'ctrl-d' || key.name === 'eof') {
      if (live) output.write('\n');
      return undefined;
    }
    if (key.name === 'backspace') text = dropLastGrapheme(text);
    else if (key.name === 'ctrl-u') text = '';
    else if (key.name === 'ctrl-w') text = text.replace(/\S*\s*$/, '');
    else if (key.name === 'tab') text += ' ';
    else if (key.name === 'char') text += key.char;
    else continue;
    redraw();
  }
}

export function questionText(request: ApprovalQuestion): string {
  return approvalQuestion(request, { path: visibleText, text: visibleText });
}

/** The choices, as many to a row as fit the width. */
export function choiceRows(choices: readonly Choice[], display: Display, palette: Palette): string[] {
  const rows: string[] = [];
  let row = '';
  let used = 0;
  for (const choice of choices) {
    const width = displayWidth(`${choice.key} ${choice.label}`);
    const gap = used === 0 ? 2 : 3;
    if (used > 0 && used + gap + width > display.width) {
      rows.push(row);
      row = '';
      used = 0;
    }
    row += `${used === 0 ? '  ' : ' · '}${paint(choice.key, palette.key, display.level)} ${choice.label}`;
    used += (used === 0 ? 2 : 3) + width;
  }
  if (row !== '') rows.push(row);
  return rows;
}

function describeDecision(decision: Decision, request: ApprovalQuestion, display: Display, palette: Palette) {
  const yes = (text: string) => `${paint('✓', palette.addedMarker, display.level)} ${text}`;
  const no = (text: string) => `${paint('✗', palette.removedMarker, display.level)} ${text}`;
  if (decision === 'once') return yes('Yes');
  if (decision === 'file')
    return yes(
      `Yes, and no more questions about ${request.files.length > 1 ? `these ${request.files.length} files` : visibleText(pathInRoot(request.files[0]!.path, request.files[0]!.root))} this session`,
    );
  if (decision === 'all') return yes('Yes to every edit this session');
  if (decision === 'deny') return no('No');
  if ('edited' in decision) return yes('Yes, with your own version of the new text');
  if ('hunks' in decision) return yes('Yes to the hunks you chose');
  if ('reason' in decision) return yes(`Yes: ${visibleText(decision.reason)}`);
  return no(`No: ${visibleText(decision.deny)}`);
}
