import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CallItem, callsFromValue, ToolCallReader } from '../../src/cli/tool-calls.js';

/** All the calls in a complete text: what a ToolCallReader gives when fed it in one piece. */
function parseToolCalls(text: string): CallItem[] {
  const reader = new ToolCallReader();
  return [...reader.push(text), ...reader.end()];
}

const READ = { file_path: 'a.txt' };
const EDIT = { file_path: 'a.txt', old_string: 'x', new_string: 'y' };

function only(items: CallItem[]): CallItem {
  expect(items).toHaveLength(1);
  return items[0]!;
}

describe('the forms of one call', () => {
  it('plain {name, input}, with "arguments" as an object or JSON text, id or call_id kept', () => {
    expect(only(parseToolCalls('{"name": "read_file", "input": {"file_path": "a.txt"}}'))).toEqual({
      kind: 'call',
      name: 'read_file',
      input: READ,
      form: 'plain',
      where: 'line 1',
    });
    expect(
      only(parseToolCalls('{"name": "read_file", "arguments": {"file_path": "a.txt"}, "id": "7"}')),
    ).toEqual({ kind: 'call', name: 'read_file', input: READ, id: '7', form: 'plain', where: 'line 1' });
    const text = JSON.stringify({ name: 'read_file', arguments: JSON.stringify(READ), call_id: 'c' });
    expect(only(parseToolCalls(text))).toMatchObject({ kind: 'call', input: READ, id: 'c' });
    expect(only(parseToolCalls('{"name": "read_file"}'))).toMatchObject({ kind: 'call', input: {} });
  });

  it('an Anthropic tool_use block keeps its id', () => {
    const block = { type: 'tool_use', id: 'toolu_01', name: 'edit_file', input: EDIT };
    expect(only(parseToolCalls(JSON.stringify(block)))).toEqual({
      kind: 'call',
      name: 'edit_file',
      input: EDIT,
      id: 'toolu_01',
      form: 'anthropic',
      where: 'line 1',
    });
  });

  it('an Anthropic assistant message or whole response: its tool_use blocks, text and thinking skipped', () => {
    const response = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hm', signature: 's' },
        { type: 'text', text: 'I will read then edit.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: READ },
        { type: 'tool_use', id: 'toolu_2', name: 'edit_file', input: EDIT },
      ],
      stop_reason: 'tool_use',
    };
    const items = parseToolCalls(JSON.stringify(response));
    expect(items).toEqual([
      {
        kind: 'call',
        name: 'read_file',
        input: READ,
        id: 'toolu_1',
        form: 'anthropic',
        where: 'line 1, content[2]',
      },
      {
        kind: 'call',
        name: 'edit_file',
        input: EDIT,
        id: 'toolu_2',
        form: 'anthropic',
        where: 'line 1, content[3]',
      },
    ]);
    // A plain text message holds no calls, and that is not an error.
    expect(parseToolCalls('{"role": "assistant", "content": "Done."}')).toEqual([]);
  });

  it('an OpenAI chat tool call: arguments is JSON text, parsed; "" means no arguments', () => {
    const call = {
      id: 'call_1',
      type: 'function',
      function: { name: 'read_file', arguments: JSON.stringify(READ) },
    };
    expect(only(parseToolCalls(JSON.stringify(call)))).toEqual({
      kind: 'call',
      name: 'read_file',
      input: READ,
      id: 'call_1',
      form: 'openai-chat',
      where: 'line 1',
    });
    const empty = { id: 'c', type: 'function', function: { name: 'read_file', arguments: '' } };
    expect(only(parseToolCalls(JSON.stringify(empty)))).toMatchObject({ kind: 'call', input: {} });
    // Without "type" (some harnesses drop it), the function object still says what it is.
    const untyped = { id: 'c', function: { name: 'read_file', arguments: { file_path: 'a.txt' } } };
    expect(only(parseToolCalls(JSON.stringify(untyped)))).toMatchObject({ form: 'openai-chat', input: READ });
  });

  it('an OpenAI chat message and a whole completion: their tool_calls', () => {
    const message = {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: JSON.stringify(READ) } },
        { id: 'call_2', type: 'function', function: { name: 'edit_file', arguments: JSON.stringify(EDIT) } },
      ],
    };
    const items = parseToolCalls(JSON.stringify(message));
    expect(items.map((item) => [item.kind, item.id, item.where])).toEqual([
      ['call', 'call_1', 'line 1, tool_calls[0]'],
      ['call', 'call_2', 'line 1, tool_calls[1]'],
    ]);
    const completion = { id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message }] };
    expect(parseToolCalls(JSON.stringify(completion)).map((item) => item.where)).toEqual([
      'line 1, choices[0].message.tool_calls[0]',
      'line 1, choices[0].message.tool_calls[1]',
    ]);
    expect(parseToolCalls('{"role": "assistant", "content": "hi", "tool_calls": null}')).toEqual([]);
  });

  it('an OpenAI Responses function_call item (call_id is the id) and a whole response', () => {
    const item = {
      type: 'function_call',
      id: 'fc_1',
      call_id: 'call_9',
      name: 'read_file',
      arguments: '{"file_path":"a.txt"}',
    };
    expect(only(parseToolCalls(JSON.stringify(item)))).toEqual({
      kind: 'call',
      name: 'read_file',
      input: READ,
      id: 'call_9',
      form: 'openai-responses',
      where: 'line 1',
    });
    const response = {
      object: 'response',
      output: [
        { type: 'reasoning', id: 'rs_1', summary: [] },
        item,
        { type: 'message', role: 'assistant', content: [] },
      ],
    };
    expect(only(parseToolCalls(JSON.stringify(response)))).toMatchObject({
      id: 'call_9',
      where: 'line 1, output[1]',
    });
  });
});

describe('errors say where and what was expected', () => {
  it('OpenAI arguments that are not JSON: an INVALID_INPUT answer for that call, keeping its id', () => {
    const call = {
      id: 'call_1',
      type: 'function',
      function: { name: 'edit_file', arguments: '{"file_path": ' },
    };
    const item = only(parseToolCalls(JSON.stringify(call)));
    expect(item).toMatchObject({
      kind: 'error',
      name: 'edit_file',
      id: 'call_1',
      form: 'openai-chat',
      where: 'line 1',
    });
    expect(item.kind === 'error' && item.message).toMatch(
      /^edit_file failed \(INVALID_INPUT\): the arguments are not valid JSON \(.+\)\. Nothing was done\. Call edit_file again/,
    );
    const responses = { type: 'function_call', call_id: 'c2', name: 'read_file', arguments: 'nope' };
    expect(only(parseToolCalls(JSON.stringify(responses)))).toMatchObject({
      kind: 'error',
      id: 'c2',
      form: 'openai-responses',
    });
  });

  it('a call without a name: the form expected, and the id when there is one', () => {
    const item = only(parseToolCalls('{"type": "tool_use", "id": "toolu_1", "input": {}}'));
    expect(item).toMatchObject({ kind: 'error', id: 'toolu_1', form: 'anthropic' });
    expect(item.kind === 'error' && item.message).toContain('has no "name"');
    expect(item.kind === 'error' && item.message).toContain(
      '{"type": "tool_use", "id", "name", "input": {...}}',
    );
    const numbered = only(parseToolCalls('{"name": 42, "input": {}}'));
    expect(numbered.kind === 'error' && numbered.message).toContain('not a tool name (a number (42))');
    const noFunction = only(parseToolCalls('{"id": "c", "type": "function"}'));
    expect(noFunction.kind === 'error' && noFunction.message).toContain('has no "function" object');
  });

  it('something that is not a call: the shape found and every form accepted', () => {
    for (const text of ['{"tool": "read_file", "args": {}}', '42', '"read_file"', 'null', '[[1]]']) {
      const item = parseToolCalls(text)[0]!;
      expect(item.kind).toBe('error');
      expect(item.kind === 'error' && item.message).toMatch(
        /^not a tool call \(got .+\)\. Expected a tool call: /,
      );
      expect(item.kind === 'error' && item.message).toContain('editgate apply --help');
    }
    expect(parseToolCalls('[[1]]')[0]!.where).toBe('line 1, [0]');
    const bad = parseToolCalls('{"role": "assistant", "tool_calls": {"id": "x"}}');
    expect(only(bad).kind === 'error' && (only(bad) as { message: string }).message).toContain(
      '"tool_calls" must be an array',
    );
  });

  it('a line that is not JSON names its line, and the lines after it still come', () => {
    const text = ['{"name": "read_file", "input": {}}', '', 'read_file a.txt', '{"name": "edit_file"}'].join(
      '\n',
    );
    const items = parseToolCalls(text);
    expect(items.map((item) => [item.kind, item.where])).toEqual([
      ['call', 'line 1'],
      ['error', 'line 3'],
      ['call', 'line 4'],
    ]);
    expect((items[1] as { message: string }).message).toMatch(
      /^not valid JSON \(.+\)\. Send each tool call as JSON/,
    );
    expect((items[1] as { message: string }).message).toContain('the next lines still run');
  });

  it('in JSON Lines input a line cut short is an error at once, not the start of a longer value', () => {
    const reader = new ToolCallReader();
    expect(reader.push('{"name": "read_file", "input": {}}\n')).toHaveLength(1);
    const cut = reader.push('{"name": "read_file", "input": {"file_path": "a.txt"}\n');
    expect(only(cut)).toMatchObject({ kind: 'error', where: 'line 2' });
    expect((cut[0] as { message: string }).message).toContain('every line must hold a whole tool call');
    expect(only(reader.push('{"name": "edit_file", "input": {}}\n'))).toMatchObject({
      kind: 'call',
      where: 'line 3',
    });
    expect(reader.end()).toEqual([]);
  });
});

describe('the layout of the input', () => {
  it('JSON Lines: blank lines ignored, CRLF and a byte-order mark accepted, no final newline needed', () => {
    const text =
      '\uFEFF{"name": "read_file", "input": {"file_path": "a.txt"}}\r\n\r\n  \n[{"name": "a"}, {"name": "b"}]';
    expect(parseToolCalls(text).map((item) => [item.kind, item.where])).toEqual([
      ['call', 'line 1'],
      ['call', 'line 4, [0]'],
      ['call', 'line 4, [1]'],
    ]);
    expect(parseToolCalls('')).toEqual([]);
    expect(parseToolCalls('\n \n')).toEqual([]);
  });

  it('each line comes out as soon as it is complete, before the end of the input', () => {
    const reader = new ToolCallReader();
    expect(reader.push('{"name": "read_')).toEqual([]);
    expect(only(reader.push('file", "input": {}}\n'))).toMatchObject({ name: 'read_file', where: 'line 1' });
    expect(only(reader.push('{"name": "edit_file"}\n{"na'))).toMatchObject({
      name: 'edit_file',
      where: 'line 2',
    });
    expect(only(reader.end())).toMatchObject({ kind: 'error', where: 'line 3' });
  });

  it('a pretty-printed object, and several, and a pretty-printed array', () => {
    const one = JSON.stringify({ name: 'read_file', input: READ }, null, 2);
    expect(only(parseToolCalls(one))).toMatchObject({
      kind: 'call',
      name: 'read_file',
      input: READ,
      where: 'lines 1-6',
    });
    const two = `${one}\n\n${JSON.stringify({ type: 'tool_use', id: 't', name: 'edit_file', input: EDIT }, null, 2)}\n`;
    expect(parseToolCalls(two).map((item) => [item.kind, item.where])).toEqual([
      ['call', 'lines 1-6'],
      ['call', 'lines 8-17'],
    ]);
    const array = JSON.stringify(
      [
        { name: 'read_file', input: READ },
        { name: 'edit_file', input: EDIT },
      ],
      null,
      2,
    );
    expect(parseToolCalls(array).map((item) => item.where)).toEqual(['lines 1-16, [0]', 'lines 1-16, [1]']);
  });

  it('a pretty-printed value runs when its closing bracket arrives', () => {
    const reader = new ToolCallReader();
    expect(reader.push('{\n  "name": "read_file",\n')).toEqual([]);
    expect(only(reader.push('  "input": {}\n}\n'))).toMatchObject({ kind: 'call', where: 'lines 1-4' });
  });

  it('a broken pretty-printed value: its line, and reading goes on at the next value', () => {
    const text = [
      '{',
      '  "name": "read_file",',
      '  "input": {"file_path": "a.txt"',
      '}',
      '{',
      '  "name": "edit_file"',
      '}',
    ].join('\n');
    const items = parseToolCalls(text);
    expect(items.map((item) => [item.kind, item.where])).toEqual([
      ['error', 'lines 1-5'],
      ['call', 'lines 5-7'],
    ]);
    expect((items[0] as { message: string }).message).toMatch(
      /^the JSON value starting on line 1 is not valid JSON \(.+, at line 5, column 1\)\. It was not run; reading goes on at the next line that starts with \{ or \[/,
    );
  });

  it('a first line cut short, then whole lines: the error, then the lines still run', () => {
    const text =
      '{"name": "read_file", "input": {"file_path": "a.txt"}\n{"name": "edit_file"}\n{"name": "undo_edit"}\n';
    expect(parseToolCalls(text).map((item) => [item.kind, item.where])).toEqual([
      ['error', 'lines 1-2'],
      ['call', 'line 2'],
      ['call', 'line 3'],
    ]);
  });

  it('a value left unfinished at the end of the input', () => {
    const items = parseToolCalls('{\n  "name": "read_file",\n  "input": {\n');
    expect(only(items)).toMatchObject({ kind: 'error', where: 'lines 1-3' });
    expect((items[0] as { message: string }).message).toContain('not complete at the end of the input');
  });
});

// Calls as a harness writes them: plain ones (the arbitrary part is the input), with an id or not.
const keyArb = fc.string().filter((key) => key !== '__proto__');
const plainCallArb = fc.record(
  {
    name: fc.string({ minLength: 1 }),
    input: fc.dictionary(keyArb, fc.jsonValue(), { maxKeys: 4 }),
    id: fc.string({ minLength: 1 }),
  },
  { requiredKeys: ['name', 'input'] },
);

function expectedCalls(calls: Array<{ name: string; input: unknown; id?: string }>) {
  return calls.map((call) => ({
    name: call.name,
    input: JSON.parse(JSON.stringify(call.input)),
    ...(call.id === undefined ? {} : { id: call.id }),
  }));
}

function parsedCalls(items: CallItem[]) {
  return items.map((item) => {
    expect(item.kind).toBe('call');
    return {
      name: (item as { name: string }).name,
      input: (item as { input: unknown }).input,
      ...(item.id ? { id: item.id } : {}),
    };
  });
}

describe('properties', () => {
  it('any plain calls, as JSON Lines, as an array, or pretty-printed, parse back to the same calls', () => {
    fc.assert(
      fc.property(fc.array(plainCallArb, { maxLength: 6 }), (calls) => {
        const expected = expectedCalls(calls);
        const layouts = [
          calls.map((call) => JSON.stringify(call)).join('\n'),
          JSON.stringify(calls),
          JSON.stringify(calls, null, 2),
          calls.map((call) => JSON.stringify(call, null, 4)).join('\n'),
        ];
        for (const text of layouts) expect(parsedCalls(parseToolCalls(text))).toEqual(expected);
      }),
    );
  });

  it('however the text is cut into pieces, the reader gives the same items as the whole text', () => {
    const lineArb = fc.oneof(
      plainCallArb.map((call) => JSON.stringify(call)),
      plainCallArb.map((call) => JSON.stringify(call, null, 2)),
      fc.constantFrom('', '  ', 'not json', '{"name": ', '}', '[', '{"type": "text", "text": "hi"}', '42'),
      fc.string(),
    );
    fc.assert(
      fc.property(
        fc.array(lineArb, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (lines, cuts) => {
          const text = lines.join('\n');
          const whole = parseToolCalls(text);
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
          const reader = new ToolCallReader();
          const pieces: CallItem[] = [];
          let from = 0;
          for (const point of [...points, text.length]) {
            pieces.push(...reader.push(text.slice(from, point)));
            from = point;
          }
          pieces.push(...reader.end());
          expect(pieces).toEqual(whole);
        },
      ),
    );
  });

  it('callsFromValue never throws, whatever the JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        for (const item of callsFromValue(value, 'line 1')) {
          expect(item.where.startsWith('line 1')).toBe(true);
          if (item.kind === 'error') expect(item.message.length).toBeGreaterThan(20);
        }
      }),
    );
  });
});
