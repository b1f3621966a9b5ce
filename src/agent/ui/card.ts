import { askedByLine } from '../../core/finding-words.js';
import { pathInRoot } from '../../core/root-named.js';
import { type ApprovalQuestion, isReadQuestion } from '../../gate/approval.js';
import { toCells, visibleText, wrapCells } from '../../terminal/cells.js';
import { paint } from '../../terminal/colors.js';
import { editableText } from '../../terminal/edit-in-editor.js';
import { type HunkWalk, offersWalk, WALK_KEY } from '../../terminal/hunk-walk.js';
import { WALK_CHOICES, WALK_CONFIRM_CHOICES, walkQuestion } from '../../terminal/hunk-walk-view.js';
import { type Choice, choiceRows, questionText } from '../../terminal/prompt.js';
import { markWhitespaceRuns } from '../../terminal/whitespace-runs.js';
import type { CommandRequest } from '../tools/bash.js';
import { fitText, type Look, oneLine } from './transcript.js';

/**
 * The permission card: the question and its keys, drawn in the live region under the diff segment that is
 * already in the transcript (the diff is never hidden behind the card). Once answered it disappears, and
 * the transcript gets one line saying what happened.
 */
export type CardSubject =
  | { kind: 'change'; request: ApprovalQuestion }
  | { kind: 'command'; request: CommandRequest }
  /** The project's editgate.config.json is not trusted: trust it now, or not now (see ChatApp.askTrust). */
  | { kind: 'trust' };

export function cardChoices(subject: CardSubject): Choice[] {
  if (subject.kind === 'trust') {
    return [
      { key: 'y', label: 'trust it' },
      { key: 'n', label: 'not now' },
    ];
  }
  if (subject.kind === 'command') {
    return [
      { key: 'y', label: 'yes' },
      { key: 'n', label: 'no' },
      { key: 'r', label: 'no, with a reason' },
      { key: 'v', label: 'view the whole command' },
      { key: 'Esc', label: 'no, and stop the turn' },
    ];
  }
  const choices: Choice[] = [
    { key: 'y', label: 'yes' },
    { key: 'a', label: 'yes, this file for the session' },
    { key: 'A', label: 'yes, all edits this session' },
    { key: 'n', label: 'no' },
    { key: 'r', label: 'no, with a reason' },
  ];
  const read = isReadQuestion(subject.request);
  if (!read) choices.push({ key: '+', label: 'yes, with a note' });
  if (editableText(subject.request) !== undefined) choices.push({ key: 'e', label: 'edit it' });
  if (offersWalk(subject.request)) choices.push({ key: WALK_KEY, label: 'hunk by hunk' });
  if (!read) choices.push({ key: 'v', label: 'view the whole diff' });
  choices.push({ key: 'Esc', label: 'no, and stop the turn' });
  return choices;
}

export function cardQuestion(subject: CardSubject): string {
  if (subject.kind === 'trust')
    return "Trust this project's editgate.config.json? (new, or changed since you trusted it)";
  return subject.kind === 'command' ? 'Run this command?' : questionText(subject.request);
}

/** Rows of a command the card shows; the rest is one key (v) away, and the card says how many there are. */
export const CARD_COMMAND_ROWS = 8;

/**
 * Every row of a command, nothing cut: each of its lines after `$ `, wrapped at `width` columns (the rows
 * a line wraps onto are indented under it), long runs of whitespace marked (`␣×300`), control characters
 * as symbols. What the card shows first, and what v shows whole.
 */
export function commandRows(command: string, look: Look, width = look.width - 1): string[] {
  const dollar = paint('$', look.palette.key, look.level);
  const out: string[] = [];
  for (const line of command.split('\n')) {
    const cells = toCells(markWhitespaceRuns(line.replace(/\r$/, '')));
    wrapCells(cells, Math.max(1, width - 4)).forEach((row, i) => {
      const text = row.map((cell) => cell.text).join('');
      out.push(`${i === 0 ? `  ${dollar} ` : '    '}${paintMarks(text, look)}`);
    });
  }
  return out;
}

/** The `␣×N` marks stand out from the command's own text. */
function paintMarks(text: string, look: Look): string {
  return text.replace(/␣×\d+/g, (mark) => paint(mark, look.palette.note, look.level));
}

/** The card after e: the person's version is in the transcript as a diff; write it, edit it again, or not. */
export function renderYoursCard(request: ApprovalQuestion, look: Look): string[] {
  const file = request.files[0]!;
  const question = `Write your version of ${visibleText(pathInRoot(file.path, file.root))}?`;
  return [
    paint(fitText(question, look.width - 1), look.palette.question, look.level),
    ...choiceRows(
      [
        { key: 'y', label: 'yes, write your version' },
        { key: 'e', label: 'edit it again' },
        { key: 'n', label: 'no, back to the question' },
        { key: 'Esc', label: 'no, and stop the turn' },
      ],
      cardDisplay(look),
      look.palette,
    ),
  ];
}

/**
 * The card during the walk (h): the hunk just printed to the transcript is asked about, with the walk's
 * keys; once every hunk is chosen (the line of what will be written is in the transcript), whether to write it.
 */
export function renderWalkCard(request: ApprovalQuestion, walk: HunkWalk, look: Look): string[] {
  const place = walk.current();
  const question = place ? walkQuestion(request, place) : 'Write the hunks as chosen above?';
  const stop = { key: 'Esc', label: 'no, and stop the turn' };
  return [
    paint(fitText(question, look.width - 1), look.palette.question, look.level),
    ...choiceRows([...(place ? WALK_CHOICES : WALK_CONFIRM_CHOICES), stop], cardDisplay(look), look.palette),
  ];
}

/** The CLI's prompt lays the keys out; one column is kept free (the live region's rows never fill the width). */
function cardDisplay(look: Look) {
  return { level: look.level, theme: look.palette.theme, width: look.width - 1, height: 24, tabWidth: 4 };
}

export function renderCard(subject: CardSubject, look: Look): string[] {
  const lines = [paint(fitText(cardQuestion(subject), look.width - 1), look.palette.question, look.level)];
  if (subject.kind === 'command') {
    const rows = commandRows(subject.request.command, look);
    lines.push(...rows.slice(0, CARD_COMMAND_ROWS));
    if (rows.length > CARD_COMMAND_ROWS)
      lines.push(
        paint(
          fitText(
            `    … ${rows.length - CARD_COMMAND_ROWS} more rows: v shows the whole command`,
            look.width - 1,
          ),
          look.palette.note,
          look.level,
        ),
      );
    if (subject.request.description)
      lines.push(
        paint(
          `  ${fitText(oneLine(subject.request.description), look.width - 3)}`,
          { dim: true },
          look.level,
        ),
      );
  }
  // Which rule asked (its findings are in the transcript above, with the diff).
  const asked = subject.kind === 'change' ? askedByLine(subject.request.findings) : undefined;
  if (asked) lines.push(paint(fitText(visibleText(asked), look.width - 1), look.palette.note, look.level));
  lines.push(...choiceRows(cardChoices(subject), cardDisplay(look), look.palette));
  return lines;
}
