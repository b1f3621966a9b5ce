/**
 * The card: how a call that editgate cannot show as a diff is put to a person. It names the tool and the
 * server, says why there is no diff, and lays the arguments out one per line, nested values indented and
 * multi-line text as a block, never as one long JSON string. Everything is made visible (visible-text.ts).
 * A card is never cut: a person is never asked to approve what they cannot see (gate/shown-whole.ts), so a
 * call whose arguments do not fit on a card is refused without asking (cardTooLongError).
 */
import { EditgateError } from '../core/errors.js';
import type { Args } from './tool-class.js';
import { visibleText } from './visible-text.js';

export interface CardRequest {
  /** The upstream server as the person knows it. */
  server: string;
  tool: string;
  /** The tool's own title, when it gives one. */
  title?: string;
  arguments: Args;
  /** Why editgate treats the tool this way (its class's basis). */
  basis: string;
  /** Why there is no diff for this call, when the tool usually has one. */
  note?: string;
  /** "Allow this tool for the session" may be offered (never for a write tool whose diff failed). */
  sessionGrant: boolean;
}

/** A card answer: this call, this tool for the rest of the session, or no (with a reason for the model). */
export type CardDecision = 'once' | 'tool' | 'deny' | { deny: string };

const MAX_LINES = 80;
const MAX_CHARS = 8000;
const INLINE_STRING = 160;

function scalar(value: unknown): string | undefined {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string' && !value.includes('\n') && value.length <= INLINE_STRING) {
    // JSON quoting shows where the text starts and ends, and spells out control characters.
    return visibleText(JSON.stringify(value), { oneLine: true });
  }
  if (Array.isArray(value) && value.length === 0) return '[]';
  if (value && typeof value === 'object' && Object.keys(value).length === 0) return '{}';
  if (value === undefined) return 'undefined';
  return undefined;
}

function layOut(label: string, value: unknown, indent: string, lines: string[]): void {
  const inline = scalar(value);
  if (inline !== undefined) {
    lines.push(`${indent}${label}${inline}`);
    return;
  }
  if (typeof value === 'string') {
    const count = value.split('\n').length;
    lines.push(`${indent}${label}(text, ${count} ${count === 1 ? 'line' : 'lines'})`);
    for (const line of value.split('\n')) lines.push(`${indent}  │ ${visibleText(line, { oneLine: true })}`);
    return;
  }
  lines.push(`${indent}${label}`.trimEnd());
  if (Array.isArray(value)) {
    for (const item of value) layOut('- ', item, `${indent}  `, lines);
    return;
  }
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    layOut(`${visibleText(key, { oneLine: true })}: `, entry, `${indent}  `, lines);
  }
}

/** The arguments, one per line. */
export function layOutArguments(args: Args): string {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(args))
    layOut(`${visibleText(key, { oneLine: true })}: `, value, '', lines);
  return lines.length > 0 ? lines.join('\n') : '(no arguments)';
}

function cardHead(request: CardRequest): string[] {
  const name = visibleText(request.tool, { oneLine: true });
  const title = request.title ? ` (${visibleText(request.title, { oneLine: true })})` : '';
  return [
    `${visibleText(request.server, { oneLine: true })} wants to run ${name}${title}.`,
    request.note ? visibleText(request.note) : 'editgate cannot show what it changes as a diff.',
    `Why asked: ${visibleText(request.basis)}.`,
    '',
    'Arguments:',
  ];
}

/** The whole card as text, every argument in it (cardTooLongError says first when that is too much). */
export function cardText(request: CardRequest): string {
  const body = layOutArguments(request.arguments)
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
  return `${cardHead(request).join('\n')}\n${body}`;
}

/**
 * TOO_LARGE when the card's arguments are more than a question shows (MAX_LINES lines, MAX_CHARS
 * characters): the call is refused without asking, since the person would approve all of it having seen
 * part. Undefined when the card fits.
 */
export function cardTooLongError(request: CardRequest): EditgateError | undefined {
  const body = layOutArguments(request.arguments);
  const lines = body.split('\n').length;
  if (lines <= MAX_LINES && body.length <= MAX_CHARS) return undefined;
  const tool = visibleText(request.tool, { oneLine: true });
  return new EditgateError(
    'TOO_LARGE',
    `The arguments of this ${tool} call take ${lines} lines (${body.length} characters) laid out, more than a question shows (${MAX_LINES} lines, ${MAX_CHARS} characters), and editgate never asks anyone to approve a call they cannot see whole. Nothing was run. Make smaller calls whose arguments fit, or ask the user to allow ${tool} with a policy rule in editgate.config.json.`,
    { tool: request.tool, lines, chars: body.length, reason: 'card-too-long' },
  );
}
