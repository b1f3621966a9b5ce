/**
 * The card: how a call that editgate cannot show as a diff is put to a person. It names the tool and the
 * server, says why there is no diff, and lays the arguments out one per line, nested values indented and
 * multi-line text as a block, never as one long JSON string. Everything is made visible (visible-text.ts)
 * and the card is cut to a size a prompt can show, saying how much was left out.
 */
import type { Args } from './tool-class.js';
import { capLines, visibleText } from './visible-text.js';

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

/** The whole card as text, cut to what a prompt can show. */
export function cardText(request: CardRequest): string {
  const name = visibleText(request.tool, { oneLine: true });
  const title = request.title ? ` (${visibleText(request.title, { oneLine: true })})` : '';
  const head = [
    `${visibleText(request.server, { oneLine: true })} wants to run ${name}${title}.`,
    request.note ? visibleText(request.note) : 'editgate cannot show what it changes as a diff.',
    `Why asked: ${visibleText(request.basis)}.`,
    '',
    'Arguments:',
  ];
  const capped = capLines(layOutArguments(request.arguments), MAX_LINES, MAX_CHARS);
  const body = capped.text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
  const cut =
    capped.omittedLines > 0
      ? `\n  … ${capped.omittedLines} more lines not shown; the call is sent whole.`
      : '';
  return `${head.join('\n')}\n${body}${cut}`;
}
