import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describe, expect, it } from 'vitest';
import { outputSchemaFor } from '../../src/mcp/output-schema.js';
import type { ToolResult } from '../../src/tools/result.js';
import { makeWorkspace, readAll } from '../tools/workspace-fixture.js';

// The output schemas are flat (see output-schema.ts: a client compiles them on every session start), so the
// detail fields live in a description. Kept true here: real results of every kind validate, and every
// detail field a successful result carries is named in its tool's description.

const ajv = new AjvJsonSchemaValidator();

function check(tool: string, result: ToolResult): void {
  const schema = outputSchemaFor(tool);
  // What an MCP client gets: the result as JSON (undefined fields dropped).
  const structured = JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
  const validation = ajv.getValidator(schema)(structured);
  expect(validation.valid, `${tool}: ${JSON.stringify(validation)}`).toBe(true);
  const described = (schema.properties as { details: { description: string } }).details.description;
  // A failure's details depend on its code (the closest text for NOT_FOUND, the places for AMBIGUOUS, ...);
  // what happened comes apart from the advice for the model (#27).
  if (!result.ok) {
    expect(structured.happened, tool).toEqual(expect.any(String));
    expect(result.message, tool).toContain(result.happened);
    return;
  }
  const missing = Object.keys(structured.details as object).filter(
    (field) => !new RegExp(`\\b${field}\\b`).test(described),
  );
  expect(missing, `${tool}: details fields not described`).toEqual([]);
}

describe('output schemas', () => {
  it('validate real results, and name every detail field a success carries', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'alpha\nbeta\n' });
    const tools = ws.tools({ policy: { rules: [{ path: 'a.txt', action: 'allow' }] } });
    check('read_file', await readAll(tools, 'a.txt'));
    check('read_file', await tools.execute('read_file', { file_path: 'a.txt', offset: 2, limit: 1 }));
    check('read_file', await tools.execute('read_file', { file_path: 'missing.txt' }));
    check(
      'edit_file',
      await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'alpha', new_string: 'gamma' }),
    );
    check(
      'edit_file',
      await tools.execute('edit_file', { file_path: 'a.txt', old_string: 'zzz', new_string: 'y' }),
    );
    check('write_file', await tools.execute('write_file', { file_path: 'b.txt', content: 'new\n' }));
    check('undo_edit', await tools.execute('undo_edit', { file_path: 'a.txt' }));
    const preview = ws.tools({ mode: 'preview', approve: 'allow' });
    await readAll(preview, 'a.txt');
    const staged = await preview.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'beta',
      new_string: 'delta',
    });
    expect(staged.ok).toBe(true);
    check('edit_file', staged);
    const tiered = ws.tools({ approve: 'allow' });
    await readAll(tiered, 'a.txt');
    const tolerant = await tiered.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'beta   ',
      new_string: 'epsilon',
    });
    check('edit_file', tolerant);
  });

  it('are the same object for every change tool, and read_file has its own', () => {
    expect(outputSchemaFor('edit_file')).toBe(outputSchemaFor('multi_edit'));
    expect(outputSchemaFor('read_file')).not.toBe(outputSchemaFor('edit_file'));
  });
});
