// What a client receives for a tool call: every tool's results, successes and failures, as toCallToolResult
// and failureResult make them. The server registers its tools/call handler without the SDK Server's result
// validation (session-server.ts), so these must be results CallToolResultSchema takes unchanged; and they
// must be byte for byte what the JSON round trip toCallToolResult once used made of them.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { failureResult, toCallToolResult } from '../../src/mcp/result.js';
import type { ToolResult } from '../../src/tools/result.js';
import { makeWorkspace, scriptedApprover } from '../tools/workspace-fixture.js';

const patch = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');

/** Results of every tool (and of the MCP layer's own refusals), from real calls on a real workspace. */
async function everyToolsResults(): Promise<ToolResult[]> {
  const ws = await makeWorkspace({
    'src/app.ts': 'const a = 1;\nconst b = 2;\n',
    'crlf.txt': 'one\r\ntwo\r\n',
    'bin.dat': Buffer.from([0, 1, 2, 0, 255]),
    'same.txt': 'x\nx\n',
  });
  const results: ToolResult[] = [];
  const tools = ws.tools();
  const run = async (name: string, input: unknown) => {
    results.push(await tools.execute(name, input));
  };
  await run('read_file', { file_path: 'src/app.ts' });
  await run('read_file', { file_path: 'crlf.txt', offset: 2, limit: 1 });
  await run('read_file', { file_path: 'same.txt' });
  await run('edit_file', { file_path: 'src/app.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' });
  await run('edit_file', { file_path: 'src/app.ts', old_string: 'const  a = 1;', new_string: 'let a = 1;' });
  await run('multi_edit', {
    file_path: 'src/app.ts',
    edits: [
      { old_string: 'let a', new_string: 'const a' },
      { old_string: 'b = 3', new_string: 'b = 4', replace_all: 'true' },
    ],
  });
  await run('edit_lines', { file_path: 'src/app.ts', edits: [{ range: [3, 3], replacement: '// end' }] });
  await run('write_file', { file_path: 'new/file.md', content: '# hi\n' });
  await run('write_file', { file_path: 'new/file.md', content: '# hi\n' });
  await run('apply_patch', {
    patch: patch('*** Update File: src/app.ts', '-// end', '+// the end', '*** Add File: b.txt', '+b'),
  });
  await run('undo_edit', { file_path: 'src/app.ts' });
  // Failures: the tools', the input checks', the guard's.
  await run('no_such_tool', {});
  await run('edit_file', { file_path: 'src/app.ts', old_string: 5, new_string: [] });
  await run('edit_file', { file_path: 'src/app.ts', old_string: 'missing', new_string: 'x' });
  await run('edit_file', { file_path: 'same.txt', old_string: 'x', new_string: 'y' });
  await run('edit_file', { file_path: 'crlf.txt', old_string: 'two', new_string: 'three' });
  await run('edit_lines', { file_path: 'src/app.ts', edits: [{ range: [3, 1], replacement: 'x' }] });
  await run('read_file', { file_path: '../outside.txt' });
  await run('read_file', { file_path: 'bin.dat' });
  await run('read_file', { file_path: 'nope.txt' });
  await run('undo_edit', { file_path: 'same.txt' });
  await run('apply_patch', { patch: 'not a patch' });
  await run('write_file', '{not json');
  await ws.put('unread.txt', 'u\n');
  await run('edit_file', { file_path: 'unread.txt', old_string: 'u', new_string: 'v' });
  // A person's refusal, and preview mode's staged change and apply_change.
  const refusing = ws.tools({ approve: scriptedApprover({ deny: 'not today' }).approver });
  await refusing.execute('read_file', { file_path: 'src/app.ts' });
  results.push(
    await refusing.execute('edit_file', {
      file_path: 'src/app.ts',
      old_string: 'const a',
      new_string: 'let a',
    }),
  );
  const preview = ws.tools({ mode: 'preview' });
  await preview.execute('read_file', { file_path: 'src/app.ts' });
  const staged = await preview.execute('edit_file', {
    file_path: 'src/app.ts',
    old_string: 'const a',
    new_string: 'let a',
  });
  results.push(staged);
  results.push(
    await preview.execute('apply_change', {
      change_id: staged.details.changeId,
      file_path: 'src/app.ts',
      change_hash: staged.details.changeHash,
    }),
  );
  results.push(
    await preview.execute('apply_change', { change_id: 'nope', file_path: 'src/app.ts', change_hash: 'abc' }),
  );
  return results;
}

/** toCallToolResult with a JSON round trip for jsonCopy: the reference the results must still equal. */
function roundTripResult(result: ToolResult): CallToolResult {
  const { message, ...data } = result;
  return {
    _meta: { 'editgate/result': JSON.parse(JSON.stringify(data)) as Record<string, unknown> },
    content: [{ type: 'text', text: message }],
    isError: !result.ok,
  };
}

describe('tool results as MCP results', () => {
  it('every tool result is what the JSON round trip made of it, taken unchanged by CallToolResultSchema', async () => {
    const results = await everyToolsResults();
    const codes = new Set(results.map((result) => (result.ok ? 'ok' : result.code)));
    // The calls above reach what they are meant to: successes and the failures named.
    expect([...codes].sort()).toEqual(
      [
        'ok',
        'UNKNOWN_TOOL',
        'INVALID_INPUT',
        'NOT_FOUND',
        'AMBIGUOUS',
        'NOT_READ',
        'INVALID_RANGE',
        'OUTSIDE_ROOT',
        'BINARY',
        'FILE_NOT_FOUND',
        'NOTHING_TO_UNDO',
        'DENIED_USER',
        'EXPIRED',
      ].sort(),
    );
    const mcp = [
      ...results.map(toCallToolResult),
      failureResult('write_file', 'TOO_LARGE', 'The arguments are too large.', { size: 9, limit: 8 }),
      failureResult('write_file', 'DENIED_POLICY', 'This editgate server is read-only.'),
    ];
    for (const [index, result] of mcp.entries()) {
      expect(JSON.stringify(CallToolResultSchema.parse(result))).toBe(JSON.stringify(result));
      const told = index < results.length ? results[index]! : undefined;
      if (told) {
        expect(result).toStrictEqual(roundTripResult(told));
        expect(JSON.stringify(result)).toBe(JSON.stringify(roundTripResult(told)));
        expect(result.content).toEqual([{ type: 'text', text: told.message }]);
        expect(result.isError).toBe(!told.ok);
      }
    }
  });
});
