import type { ApprovalRequest } from '../../gate/approval.js';
import { paint } from '../../terminal/colors.js';
import { type Choice, choiceRows, questionText } from '../../terminal/prompt.js';
import type { CommandRequest } from '../tools/bash.js';
import { fitText, type Look, oneLine } from './transcript.js';

/**
 * The permission card: the question and its keys, drawn in the live region under the diff segment that is
 * already in the transcript (the diff is never hidden behind the card). Once answered it disappears, and
 * the transcript gets one line saying what happened.
 */
export type CardSubject =
  | { kind: 'change'; request: ApprovalRequest }
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
  if (subject.request.kind !== 'read') choices.push({ key: 'v', label: 'view the whole diff' });
  choices.push({ key: 'Esc', label: 'no, and stop the turn' });
  return choices;
}

export function cardQuestion(subject: CardSubject): string {
  if (subject.kind === 'trust')
    return "Trust this project's editgate.config.json? (new, or changed since you trusted it)";
  return subject.kind === 'command' ? 'Run this command?' : questionText(subject.request);
}

export function renderCard(subject: CardSubject, look: Look): string[] {
  const lines = [paint(fitText(cardQuestion(subject), look.width - 1), look.palette.question, look.level)];
  if (subject.kind === 'command') {
    const rows = subject.request.command.split('\n');
    for (const row of rows.slice(0, 6))
      lines.push(`  ${paint('$', look.palette.key, look.level)} ${fitText(oneLine(row), look.width - 5)}`);
    if (rows.length > 6) lines.push(paint(`    … ${rows.length - 6} more lines`, { dim: true }, look.level));
    if (subject.request.description)
      lines.push(
        paint(
          `  ${fitText(oneLine(subject.request.description), look.width - 3)}`,
          { dim: true },
          look.level,
        ),
      );
  }
  // The CLI's prompt lays the keys out; one column is kept free (the live region's rows never fill the width).
  const display = {
    level: look.level,
    theme: look.palette.theme,
    width: look.width - 1,
    height: 24,
    tabWidth: 4,
  };
  lines.push(...choiceRows(cardChoices(subject), display, look.palette));
  return lines;
}
