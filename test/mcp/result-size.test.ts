import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALLOW_ALL_CONFIG, type Connected, call, connectStdio, ensureBuilt, workspace } from './helpers.js';

/**
 * Claude Code and Codex give the model JSON.stringify(structuredContent), not the text, when a result has
 * it (issue #28): a result whose structuredContent repeats the message and the diff cost the model 2.8x
 * the text. What such a client gives the model must stay within 1.2x the text: here, the text itself, as
 * editgate's results carry no structuredContent and keep the data for programs in _meta, which no client
 * gives the model.
 */
const MAX_RATIO = 1.2;

/** The characters a client gives the model: structuredContent as JSON when present, else the text. */
function fedToModel(result: CallToolResult, text: string): number {
  return result.structuredContent === undefined
    ? text.length
    : JSON.stringify(result.structuredContent).length;
}

const source = (name: string) =>
  Array.from(
    { length: 60 },
    (_, i) => `export function ${name}${i + 1}(input: number): number {\n  return input * ${i + 1};\n}\n`,
  ).join('\n');

let session: Connected;
beforeAll(async () => {
  await ensureBuilt();
  const root = workspace({
    'a.ts': source('alpha'),
    'b.ts': source('beta'),
    'c.ts': source('gamma'),
    'editgate.config.json': ALLOW_ALL_CONFIG,
  });
  session = await connectStdio([root, '--approve', 'policy']);
  for (const file of ['a.ts', 'b.ts', 'c.ts']) await call(session.client, 'read_file', { file_path: file });
}, 120_000);
afterAll(() => session.close());

async function ratio(name: string, args: Record<string, unknown>) {
  const result = await call(session.client, name, args);
  expect(result.isError, result.text).toBe(false);
  expect(result.result.structuredContent).toBeUndefined();
  // The data for programs is there all the same.
  expect(result.structured?.ok).toBe(true);
  expect(result.structured?.details.path).toEqual(expect.any(String));
  return { ratio: fedToModel(result.result, result.text) / result.text.length, result };
}

describe('results are sized for the model (#28)', () => {
  it('read_file', async () => {
    const { ratio: r } = await ratio('read_file', { file_path: 'a.ts' });
    expect(r).toBeLessThanOrEqual(MAX_RATIO);
  });

  it('edit_file', async () => {
    const { ratio: r, result } = await ratio('edit_file', {
      file_path: 'a.ts',
      old_string: '  return input * 7;',
      new_string: '  return input * 7 + 1;',
    });
    expect(result.structured?.details).toMatchObject({ written: true, added: 1, removed: 1 });
    expect(result.structured?.details.unifiedDiff).toContain('+  return input * 7 + 1;');
    expect(r).toBeLessThanOrEqual(MAX_RATIO);
  });

  it('multi_edit', async () => {
    const { ratio: r } = await ratio('multi_edit', {
      file_path: 'a.ts',
      edits: [
        { old_string: '  return input * 8;', new_string: '  return input * 8 + 1;' },
        { old_string: '  return input * 9;', new_string: '  return input * 9 + 1;' },
      ],
    });
    expect(r).toBeLessThanOrEqual(MAX_RATIO);
  });

  it('write_file', async () => {
    const { ratio: r } = await ratio('write_file', {
      file_path: 'b.ts',
      content: source('beta').replace('return input * 3;', 'return input * 3 - 1;'),
    });
    expect(r).toBeLessThanOrEqual(MAX_RATIO);
  });

  it('apply_patch on two files', async () => {
    const { ratio: r } = await ratio('apply_patch', {
      patch: [
        '*** Begin Patch',
        '*** Update File: c.ts',
        '@@',
        ' export function gamma2(input: number): number {',
        '-  return input * 2;',
        '+  return input * 2 + 2;',
        '*** Add File: d.ts',
        '+export const d = 1;',
        '*** End Patch',
      ].join('\n'),
    });
    expect(r).toBeLessThanOrEqual(MAX_RATIO);
  });
});

describe('diffs in text results are fenced for Markdown renderers (#28)', () => {
  it('a staged change shows its diff in a ```diff block', async () => {
    const root = workspace({ 'a.md': 'intro\n```js\ncode\n```\n' });
    const preview = await connectStdio([root, '--approve', 'preview']);
    try {
      await call(preview.client, 'read_file', { file_path: 'a.md' });
      const staged = await call(preview.client, 'edit_file', {
        file_path: 'a.md',
        old_string: 'code',
        new_string: 'more code',
      });
      // The file's own fence is three backticks: the diff's is longer, so it cannot be closed early.
      expect(staged.text).toMatch(/\n````diff\n--- a\/a\.md\n[\s\S]*\+more code\n[\s\S]*\n````$/);
      expect(staged.result.structuredContent).toBeUndefined();
    } finally {
      await preview.close();
    }
  });
});
