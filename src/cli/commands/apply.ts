// `editgate apply [FILE|-]`: run tool calls given as JSON (Anthropic, OpenAI or plain), one session for all,
// so any harness in any language can use editgate's tools through a pipe.
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { visibleText } from '../../terminal/cells.js';
import type { EditTools } from '../../tools/index.js';
import type { ToolResult } from '../../tools/result.js';
import { type CliSession, openCliSession } from '../command-tools.js';
import { EXIT, type ExitCode, exitCodeFor, worstExitCode } from '../exit-codes.js';
import { commandHelp, usageFailure } from '../file-command.js';
import { report, resultJson } from '../report.js';
import { type CallItem, type JsonToolCall, ToolCallReader } from '../tool-calls.js';
import { type ParsedCommandLine, parseCommandLine, UsageError } from '../usage.js';

export const HELP = `Usage: editgate apply [FILE | -]      (or: ... | editgate apply)

Run tool calls given as JSON, in order, in one session, and print each result. The calls come from FILE,
or from standard input ("-", or no FILE when standard input is not a terminal), so a harness in any
language can use editgate's tools through a pipe. Calls work as they do for a model: read_file, then
edit_file on the same file (an edit needs a read of the region it changes first, unless the config sets
"requireReadBeforeEdit": false). Each change is shown and approved as with the other commands; when the
calls come on standard input the question is asked on the terminal (/dev/tty), and where there is no
terminal, changes are refused unless --yes or a policy rule in editgate.config.json approves them.

A call may be written in any of these forms:
  {"name": "read_file", "input": {"file_path": "src/app.ts"}}
      plain ("arguments" instead of "input" works too, as an object or as JSON text)
  {"type": "tool_use", "id": "toolu_01", "name": "edit_file", "input": {"file_path": "a.txt", ...}}
      an Anthropic tool_use block
  {"role": "assistant", "content": [{"type": "text", ...}, {"type": "tool_use", ...}]}
      an Anthropic message or a whole Messages API response: its tool_use blocks run
  {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\\"path\\": \\"a\\"}"}}
      an OpenAI Chat Completions tool call (arguments is JSON text)
  {"role": "assistant", "tool_calls": [...]}  or a whole completion {"choices": [{"message": ...}]}
      an OpenAI chat message: its tool_calls run
  {"type": "function_call", "call_id": "call_1", "name": "read_file", "arguments": "{...}"}
      an OpenAI Responses item; a whole response {"output": [...]} runs its function_call items
Other items in a message or response (text, thinking, reasoning...) are skipped, and so is any object with
a "type" that is not a tool call.

How the input is read:
  JSON Lines (the usual case): one value per line (a call, a message, or an array of calls); blank lines
    are ignored. Each line runs as soon as it arrives, so a harness can keep the pipe open, write a call,
    and read its result before writing the next one. An input is JSON Lines when its first value ends on
    its first line.
  Pretty-printed: when the first value does not end on its first line (an indented object or array), each
    value may span lines and runs when its closing } or ] arrives (an array: all its calls then).
  A JSON array of calls is either of these: all on one line, or spread over several.

When something is wrong, nothing stops: a value that is not valid JSON, is not a tool call, has no name,
or names a tool editgate does not have gets an error result (INVALID_INPUT or UNKNOWN_TOOL, with the line
number) and the calls after it still run; the exit code is then 2 (so here, unlike the other commands,
exit 2 can follow calls that ran). In JSON Lines input a line cut short is an error at once and reading
goes on at the next line; in pretty-printed input, at the next line that starts with { or [ in its first
column. A first line cut short is taken for the start of a pretty-printed value, so its error comes when
the next line arrives. OpenAI arguments that are not valid JSON give an INVALID_INPUT answer for that
call. A value that holds no call (a message with only text) gives no result.

Output:
  For people: a line for each call ("[line 2] edit_file src/app.ts"), the diff of each change, then the
  result: on standard output, or on standard error when the call failed.
  --json: one JSON line per call on standard output, in input order, and nothing else there:
    {"id": "toolu_01", "where": "line 2", "tool": "edit_file", "ok": true, "message": "...",
     "details": {...}, "anthropic": {"type": "tool_result", "tool_use_id": "toolu_01", "content": "...",
     "is_error": false}}
  "code" is added when ok is false. "id" is the call's id (null if it has none), and the ready-made reply
  for the model is "anthropic" for Anthropic calls, "openai" for OpenAI ones ({"role": "tool",
  "tool_call_id", "content"} for chat, {"type": "function_call_output", "call_id", "output"} for
  Responses); plain calls get none. "tool" is null when the input was too broken to name one.
  The exit code is the worst over all the calls: 2 input error, then 1 refused, then 3 denied, then 0.

Examples:
  editgate apply calls.jsonl --yes
  echo '{"name": "read_file", "input": {"file_path": "README.md"}}' | editgate apply
  curl -s https://api.anthropic.com/v1/messages ... | editgate apply --json --yes   (its tool_use blocks)
  A harness starts "editgate apply --json --yes" with pipes, writes one call per line to its standard
  input, and reads one result line per call from its standard output.`;

const NAME = 'apply';

interface Source {
  /** The calls come on standard input, so approval keys must come from /dev/tty. */
  stdin: boolean;
  label: string;
  chunks(): AsyncIterable<string>;
  close(): Promise<void>;
}

export async function run(args: string[]): Promise<number> {
  let line: ParsedCommandLine<Record<string, never>>;
  let source: Source;
  try {
    line = parseCommandLine(args, {});
    if (line.help) {
      process.stdout.write(commandHelp(HELP));
      return EXIT.ok;
    }
    source = await openSource(line.positionals);
  } catch (error) {
    return usageFailure(NAME, error);
  }
  let session: CliSession;
  try {
    session = await openCliSession(line.globals, { stdinBusy: source.stdin, command: 'editgate apply' });
  } catch (error) {
    await source.close();
    return usageFailure(NAME, error);
  }
  try {
    return await applyCalls(session.tools, source, line.globals.json);
  } finally {
    session.close();
    await source.close();
  }
}

async function openSource(positionals: string[]): Promise<Source> {
  if (positionals.length > 1) {
    throw new UsageError(`one FILE of tool calls at a time (got ${positionals.join(', ')})`);
  }
  const file = positionals[0];
  if (file === undefined || file === '-') {
    if (process.stdin.isTTY) {
      throw new UsageError(
        file === '-'
          ? 'standard input is the terminal; pipe the calls in (... | editgate apply -) or give a FILE of calls.'
          : 'give a FILE of tool calls, or pipe them in (... | editgate apply).',
      );
    }
    return {
      stdin: true,
      label: 'standard input',
      chunks: () => process.stdin.setEncoding('utf8'),
      close: async () => {},
    };
  }
  const path = resolve(file);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return {
    stdin: false,
    label: file,
    // A stream rather than one read, so a named pipe (mkfifo) works as standard input does.
    chunks: () => handle.createReadStream({ encoding: 'utf8', autoClose: false }),
    close: () => handle.close(),
  };
}

async function applyCalls(tools: EditTools, source: Source, json: boolean): Promise<number> {
  const reader = new ToolCallReader();
  const codes: ExitCode[] = [];
  const known = new Set(tools.definitions.map((definition) => definition.name));
  const runItems = async (items: CallItem[]) => {
    for (const item of items) codes.push(await runItem(tools, known, item, json));
  };
  try {
    for await (const chunk of source.chunks()) await runItems(reader.push(chunk as string));
  } catch (error) {
    // What arrived before still ran; a broken-off input is an input error.
    process.stderr.write(
      `editgate ${NAME}: cannot read ${source.label}: ${(error as Error).message}. The calls before this point ran; check the input and send the rest again.\n`,
    );
    codes.push(EXIT.usage);
  }
  await runItems(reader.end());
  if (codes.length === 0) {
    process.stderr.write(
      `editgate ${NAME}: no tool calls in the input. Send calls as JSON, e.g. {"name": "read_file", "input": {"file_path": "a.txt"}}; editgate apply --help shows every form.\n`,
    );
  }
  return worstExitCode(codes);
}

async function runItem(
  tools: EditTools,
  known: Set<string>,
  item: CallItem,
  json: boolean,
): Promise<ExitCode> {
  if (item.kind === 'call' && !json) process.stdout.write(`${header(item)}\n`);
  const result = await resultOf(tools, known, item);
  const tool = item.kind === 'call' ? item.name : (item.name ?? null);
  if (json) {
    process.stdout.write(
      `${JSON.stringify({
        id: item.id ?? null,
        where: item.where,
        ...resultJson(tool ?? '', result),
        tool,
        ...reply(item, result),
      })}\n`,
    );
    return exitCodeFor(result);
  }
  if (item.kind === 'error') {
    process.stderr.write(`editgate ${NAME}: ${item.where}: ${visibleText(result.message)}\n`);
    return exitCodeFor(result);
  }
  return report(tool ?? '', result, { json: false, command: NAME });
}

async function resultOf(tools: EditTools, known: Set<string>, item: CallItem): Promise<ToolResult> {
  if (item.kind === 'call') return tools.execute(item.name, item.input);
  // A call whose arguments could not be read: an unknown name is still the first thing to say.
  if (item.name !== undefined && !known.has(item.name)) return tools.execute(item.name, {});
  return {
    ok: false,
    code: 'INVALID_INPUT',
    message: item.message,
    details: { where: item.where },
    happened: item.message,
  };
}

/** `[line 2] edit_file src/app.ts (id toolu_01)`, with anything a terminal would act on made visible. */
function header(call: JsonToolCall): string {
  const input = call.input as Record<string, unknown> | null;
  const path =
    typeof input === 'object' && input !== null
      ? ['file_path', 'path', 'filePath', 'file_name', 'filename', 'file']
          .map((key) => input[key])
          .find((value) => typeof value === 'string')
      : undefined;
  const parts = [`[${call.where}]`, call.name, ...(typeof path === 'string' ? [path] : [])];
  const id = call.id === undefined ? '' : ` (id ${call.id})`;
  return visibleText(`${parts.join(' ')}${id}`);
}

/** The answer to hand back to the model, in the API's own shape, for a call that has an id. */
function reply(item: CallItem, result: ToolResult): Record<string, unknown> {
  if (item.id === undefined) return {};
  switch (item.form) {
    case 'anthropic':
      return {
        anthropic: {
          type: 'tool_result',
          tool_use_id: item.id,
          content: result.message,
          is_error: !result.ok,
        },
      };
    case 'openai-chat':
      return { openai: { role: 'tool', tool_call_id: item.id, content: result.message } };
    case 'openai-responses':
      return { openai: { type: 'function_call_output', call_id: item.id, output: result.message } };
    default:
      return {};
  }
}
