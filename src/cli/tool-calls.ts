/**
 * Tool calls given as JSON text (editgate apply), in the shapes models and harnesses produce them, turned
 * into { name, input, id }. Pure: text in, calls out; the command does the reading and the running.
 *
 * Forms of one call:
 *   plain                 { "name", "input": {...} }  ("arguments" as an object or JSON text works too)
 *   Anthropic             { "type": "tool_use", "id", "name", "input": {...} }
 *   OpenAI chat           { "id", "type": "function", "function": { "name", "arguments": "<JSON text>" } }
 *   OpenAI Responses      { "type": "function_call", "call_id", "name", "arguments": "<JSON text>" }
 * and containers of calls, whose other items (text, thinking, reasoning...) are skipped:
 *   a message             { "role", "content": [blocks] } (Anthropic), { "role", "tool_calls": [...] } (OpenAI)
 *   a whole response      { "choices": [{ "message" }] } (chat completion), { "output": [items] } (Responses)
 *   an array              [ call or container, ... ]
 *
 * Layout of the text (ToolCallReader): JSON Lines (a value per line, run as each line arrives), unless the
 * first value does not end on its first line: then values may span lines (pretty-printed JSON).
 */

export type CallForm = 'plain' | 'anthropic' | 'openai-chat' | 'openai-responses';

export interface JsonToolCall {
  kind: 'call';
  name: string;
  /** As given; the tool validates it (and names what is missing or wrong). */
  input: unknown;
  /** The id a reply must reference: tool_use id, tool call id, Responses call_id. */
  id?: string;
  form: CallForm;
  /** Where in the input: "line 3", "lines 2-9, [1]", "line 4, content[2]". */
  where: string;
}

export interface CallError {
  kind: 'error';
  where: string;
  /** What is wrong and what to send instead. */
  message: string;
  /** Set when the call could be identified, so its answer can still reach the model. */
  name?: string;
  id?: string;
  form?: CallForm;
}

export type CallItem = JsonToolCall | CallError;

const EXAMPLE = '{"name": "read_file", "input": {"file_path": "a.txt"}}';

const EXPECTED =
  `Expected a tool call: ${EXAMPLE}, an Anthropic {"type": "tool_use", "id", "name", "input"} block or ` +
  'assistant message, an OpenAI {"type": "function", "function": {"name", "arguments"}} call, a message ' +
  'with "tool_calls", or a Responses {"type": "function_call", "call_id", "name", "arguments"} item ' +
  '(editgate apply --help shows each form).';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (isObject(value)) {
    const keys = Object.keys(value);
    return keys.length === 0
      ? 'an empty object'
      : `an object with ${keys
          .slice(0, 6)
          .map((key) => JSON.stringify(key))
          .join(', ')}${keys.length > 6 ? ', ...' : ''}`;
  }
  return `a ${typeof value} (${JSON.stringify(value).slice(0, 40)})`;
}

function at(where: string, path: string): string {
  return where.includes(', ') ? `${where}${path.startsWith('[') ? '' : '.'}${path}` : `${where}, ${path}`;
}

/** The calls in one JSON value: a call, a container of calls, or an array of either. */
export function callsFromValue(value: unknown, where: string): CallItem[] {
  if (Array.isArray(value)) {
    return value.flatMap((element, index) => {
      const place = at(where, `[${index}]`);
      return Array.isArray(element) ? [notACall(element, place)] : callsFromItem(element, place);
    });
  }
  return callsFromItem(value, where);
}

function notACall(value: unknown, where: string): CallError {
  return { kind: 'error', where, message: `not a tool call (got ${describe(value)}). ${EXPECTED}` };
}

function callsFromItem(value: unknown, where: string): CallItem[] {
  if (!isObject(value)) return [notACall(value, where)];
  const type = value.type;
  if (type === 'tool_use') return [anthropicCall(value, where)];
  if (type === 'function' || (type === undefined && 'function' in value))
    return [openAIChatCall(value, where)];
  if (type === 'function_call') return [responsesCall(value, where)];
  if ('role' in value || type === 'message') return message(value, where);
  if (Array.isArray(value.choices)) {
    // A whole chat completion: each choice's message.
    return value.choices.flatMap((choice, index) =>
      isObject(choice) && isObject(choice.message)
        ? message(choice.message, at(where, `choices[${index}].message`))
        : [],
    );
  }
  if (Array.isArray(value.output)) return contained(value.output, where, 'output');
  // Another kind of content block or output item (text, thinking, reasoning, tool_result...): not a call.
  if (typeof type === 'string') return [];
  if ('name' in value) return [plainCall(value, where)];
  return [notACall(value, where)];
}

/** The items of a container: calls and nested messages are read, anything else is skipped. */
function contained(items: unknown[], where: string, field: string): CallItem[] {
  return items.flatMap((item, index) => {
    const place = at(where, `${field}[${index}]`);
    return isObject(item) ? callsFromItem(item, place) : [notACall(item, place)];
  });
}

function message(value: JsonObject, where: string): CallItem[] {
  const items: CallItem[] = [];
  // Anthropic: tool_use blocks in the content. A string content (a plain text message) holds no calls.
  if (Array.isArray(value.content)) items.push(...contained(value.content, where, 'content'));
  // OpenAI chat: tool_calls beside the content (null or absent when there are none).
  if (Array.isArray(value.tool_calls)) {
    value.tool_calls.forEach((call, index) => {
      const place = at(where, `tool_calls[${index}]`);
      items.push(isObject(call) ? openAIChatCall(call, place) : notACall(call, place));
    });
  } else if (value.tool_calls !== undefined && value.tool_calls !== null) {
    items.push({
      kind: 'error',
      where,
      message: `"tool_calls" must be an array of tool calls, not ${describe(value.tool_calls)}. ${EXPECTED}`,
    });
  }
  return items;
}

function optionalId(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The tool name, or the error saying it is missing; `shape` is the form expected, for the message. */
function nameOf(value: unknown, where: string, shape: string, id: string | undefined, form: CallForm) {
  if (typeof value === 'string' && value !== '') return value;
  const problem =
    value === undefined ? 'has no "name"' : `has a "name" that is not a tool name (${describe(value)})`;
  const error: CallError = {
    kind: 'error',
    where,
    message: `this call ${problem}: give the tool to run as a string, e.g. "read_file". Expected ${shape}.`,
    form,
  };
  if (id) error.id = id;
  return error;
}

function anthropicCall(value: JsonObject, where: string): CallItem {
  const id = optionalId(value.id);
  const name = nameOf(
    value.name,
    where,
    '{"type": "tool_use", "id", "name", "input": {...}}',
    id,
    'anthropic',
  );
  if (typeof name !== 'string') return name;
  return withId({ kind: 'call', name, input: value.input ?? {}, form: 'anthropic', where }, id);
}

function openAIChatCall(value: JsonObject, where: string): CallItem {
  const id = optionalId(value.id);
  const shape = '{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}';
  if (!isObject(value.function)) {
    const error: CallError = {
      kind: 'error',
      where,
      message: `this OpenAI tool call has no "function" object (got ${describe(value.function)}). Expected ${shape}.`,
      form: 'openai-chat',
    };
    return withId(error, id);
  }
  const name = nameOf(value.function.name, where, shape, id, 'openai-chat');
  if (typeof name !== 'string') return name;
  return argumentsCall(name, value.function.arguments, id, 'openai-chat', where);
}

function responsesCall(value: JsonObject, where: string): CallItem {
  // `id` is the item's own id (fc_...); the reply references call_id.
  const id = optionalId(value.call_id);
  const shape = '{"type": "function_call", "call_id", "name", "arguments": "<JSON text>"}';
  const name = nameOf(value.name, where, shape, id, 'openai-responses');
  if (typeof name !== 'string') return name;
  return argumentsCall(name, value.arguments, id, 'openai-responses', where);
}

function plainCall(value: JsonObject, where: string): CallItem {
  const id = optionalId(value.id) ?? optionalId(value.call_id);
  const name = nameOf(value.name, where, EXAMPLE, id, 'plain');
  if (typeof name !== 'string') return name;
  if (value.input !== undefined) {
    return withId({ kind: 'call', name, input: value.input, form: 'plain', where }, id);
  }
  return argumentsCall(name, value.arguments, id, 'plain', where);
}

/** OpenAI sends arguments as JSON text; an object (or nothing) is taken as it is. */
function argumentsCall(
  name: string,
  args: unknown,
  id: string | undefined,
  form: CallForm,
  where: string,
): CallItem {
  if (typeof args !== 'string') return withId({ kind: 'call', name, input: args ?? {}, form, where }, id);
  // Some models send "" for a call they think needs no arguments; the tool then names what is missing.
  if (args.trim() === '') return withId({ kind: 'call', name, input: {}, form, where }, id);
  try {
    return withId({ kind: 'call', name, input: JSON.parse(args), form, where }, id);
  } catch (error) {
    const reason = (error as Error).message;
    const message =
      `${name} failed (INVALID_INPUT): the arguments are not valid JSON (${reason}). Nothing was done. ` +
      `Call ${name} again with its arguments as one JSON object.`;
    return withId({ kind: 'error', where, message, name, form }, id);
  }
}

function withId<T extends CallItem>(item: T, id: string | undefined): T {
  if (id !== undefined) item.id = id;
  return item;
}

/** JSON.parse, telling a value cut short (more lines may finish it) from one that is wrong. */
type Parsed =
  | { state: 'value'; value: unknown }
  | { state: 'incomplete' }
  | { state: 'invalid'; reason: string; position?: number };

function parseJson(text: string): Parsed {
  try {
    return { state: 'value', value: JSON.parse(text) };
  } catch (error) {
    const message = (error as Error).message;
    const match = / at position (\d+)/.exec(message);
    const position = match ? Number(match[1]) : undefined;
    // The position is given as a line and column instead (counted over the whole value).
    const reason = match ? message.slice(0, match.index) : message;
    // Only an object or array can continue on the next line; V8 reports the end of the text (or a
    // position at or past it) for a value that is merely unfinished.
    const opens = /^\s*[[{]/.test(text);
    if (opens && (position === undefined || position >= text.trimEnd().length))
      return { state: 'incomplete' };
    return position === undefined ? { state: 'invalid', reason } : { state: 'invalid', reason, position };
  }
}

/** "line 3" or "lines 3-9". */
function span(first: number, last: number): string {
  return first === last ? `line ${first}` : `lines ${first}-${last}`;
}

interface Line {
  number: number;
  text: string;
}

/**
 * Reads tool calls from text that arrives in pieces (standard input, a pipe), giving back each call as soon
 * as the text holding it is complete. The layout is decided by the first value: one that ends on its first
 * line makes the input JSON Lines (every line a whole value, blank lines ignored); one that does not makes
 * it pretty-printed, where a value runs until its closing bracket. Nothing is ever fatal: a bad line or
 * value becomes a CallError and reading goes on (JSON Lines: at the next line; pretty-printed: at the next
 * line that starts with { or [ in its first column, where a new top-level value begins).
 */
export class ToolCallReader {
  private partial = '';
  private lineNumber = 0;
  private layout: 'undecided' | 'lines' | 'pretty' = 'undecided';
  private group: Line[] = [];
  /** After a broken pretty-printed value: skipping its remaining lines. */
  private skipping = false;

  /** Takes the next piece of text; returns the calls (and errors) it completed. */
  push(text: string): CallItem[] {
    const items: CallItem[] = [];
    let chunk = this.partial + text;
    if (this.lineNumber === 0 && this.partial === '' && chunk.startsWith('\uFEFF')) chunk = chunk.slice(1);
    const lines = chunk.split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.line(this.nextLine(line), items);
    return items;
  }

  /** The end of the input: the last line without a newline, and any value left unfinished. */
  end(): CallItem[] {
    const items: CallItem[] = [];
    if (this.partial !== '') {
      const last = this.partial;
      this.partial = '';
      this.line(this.nextLine(last), items);
    }
    while (this.group.length > 0) {
      const group = this.group;
      this.group = [];
      const first = group[0]!.number;
      items.push({
        kind: 'error',
        where: span(first, group[group.length - 1]!.number),
        message:
          `the JSON value starting on line ${first} is not complete at the end of the input (a missing } or ]?). ` +
          'It was not run; fix it and send it again.',
      });
      this.resume(group.slice(1), items);
    }
    return items;
  }

  private nextLine(text: string): Line {
    this.lineNumber += 1;
    return { number: this.lineNumber, text: text.endsWith('\r') ? text.slice(0, -1) : text };
  }

  private line(line: Line, items: CallItem[]): void {
    if (this.group.length > 0) {
      this.group.push(line);
      this.tryGroup(items);
      return;
    }
    if (line.text.trim() === '') return;
    if (this.skipping) {
      if (!/^[[{]/.test(line.text)) return;
      this.skipping = false;
    }
    const parsed = parseJson(line.text);
    const where = `line ${line.number}`;
    if (parsed.state === 'value') {
      if (this.layout === 'undecided') this.layout = 'lines';
      items.push(...callsFromValue(parsed.value, where));
    } else if (parsed.state === 'incomplete' && this.layout !== 'lines') {
      this.layout = 'pretty';
      this.group = [line];
    } else if (parsed.state === 'incomplete') {
      items.push({
        kind: 'error',
        where,
        message:
          'not a complete JSON value (a missing } or ]?). This input is read as JSON Lines, since its first ' +
          'value fit on one line, so every line must hold a whole tool call. This line was skipped; the next ' +
          'lines still run.',
      });
    } else {
      items.push({
        kind: 'error',
        where,
        message:
          `not valid JSON (${parsed.reason}${parsed.position === undefined ? '' : `, at column ${parsed.position + 1}`}). Send each tool call as JSON, e.g. ${EXAMPLE}. ` +
          (this.layout === 'pretty'
            ? 'Reading goes on at the next line that starts with { or [.'
            : 'This line was skipped; the next lines still run.'),
      });
      if (this.layout === 'pretty') this.skipping = true;
    }
  }

  private tryGroup(items: CallItem[]): void {
    const group = this.group;
    const parsed = parseJson(group.map((line) => line.text).join('\n'));
    if (parsed.state === 'incomplete') return;
    this.group = [];
    const where = span(group[0]!.number, group[group.length - 1]!.number);
    if (parsed.state === 'value') {
      items.push(...callsFromValue(parsed.value, where));
      return;
    }
    const position = parsed.position === undefined ? '' : `, at ${this.locate(group, parsed.position)}`;
    items.push({
      kind: 'error',
      where,
      message:
        `the JSON value starting on line ${group[0]!.number} is not valid JSON (${parsed.reason}${position}). ` +
        'It was not run; reading goes on at the next line that starts with { or [.',
    });
    this.resume(group.slice(1), items);
  }

  /** After a broken value: its later lines are read again, from the next one that can start a value. */
  private resume(lines: Line[], items: CallItem[]): void {
    this.skipping = true;
    for (const line of lines) this.line(line, items);
  }

  private locate(group: Line[], position: number): string {
    let offset = position;
    for (const line of group) {
      if (offset <= line.text.length) return `line ${line.number}, column ${offset + 1}`;
      offset -= line.text.length + 1;
    }
    return `line ${group[group.length - 1]!.number}`;
  }
}
