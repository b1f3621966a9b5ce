// Anthropic's text editor tool, executed by editgate: the real Anthropic SDK against a local server that
// speaks the Messages API. A Claude turn views, replaces, creates and inserts; errors come back in the
// tool documentation's words plus editgate's guidance.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { anthropicTools, runAnthropicToolUses } from '../../src/adapters/anthropic.js';
import { createEditTools } from '../../src/tools/index.js';
import { startLocalServer } from './local-server.js';
import { anthropicMessage as message } from './replies.js';
import { GREET, greetWorkspace } from './scenario.js';

const NAME = 'str_replace_based_edit_tool';
let next = 0;
const use = (input: Record<string, unknown>, name = NAME) => ({
  type: 'tool_use',
  id: `toolu_${next++}`,
  name,
  input,
});

/** Runs one scripted turn after another, answering each with runAnthropicToolUses; returns every result. */
async function conversation(
  tools: ReturnType<typeof createEditTools>,
  turns: unknown[][],
  version: 'text_editor_20250728' | 'text_editor_20250124' = 'text_editor_20250728',
) {
  const server = await startLocalServer([
    ...turns.map((content) => message(content, 'tool_use')),
    message([{ type: 'text', text: 'Done.' }], 'end_turn'),
  ]);
  const client = new Anthropic({ baseURL: server.origin, apiKey: 'test', maxRetries: 0 });
  const offered = anthropicTools(tools, { textEditor: version, maxCharacters: 10_000 });
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Go.' }];
  const results: Anthropic.ToolResultBlockParam[][] = [];
  for (;;) {
    const reply = await client.messages.create({
      model: 'test-model',
      max_tokens: 100,
      messages,
      tools: offered,
    });
    messages.push({ role: 'assistant', content: reply.content });
    if (reply.stop_reason !== 'tool_use') break;
    const answered = await runAnthropicToolUses(tools, reply.content, { maxCharacters: 10_000 });
    results.push(answered);
    messages.push({ role: 'user', content: answered });
  }
  return { server, results: results.flat() };
}

describe('anthropic adapter: the text editor tool', () => {
  it('offers the native definition in place of the file tools, and runs view, str_replace, create, insert', async () => {
    const { root, tools, greet } = await greetWorkspace();
    await mkdir(join(root, 'src/deep/deeper'), { recursive: true });
    await writeFile(join(root, 'src/deep/deeper/hidden-by-depth.ts'), '');
    await writeFile(join(root, '.env'), 'SECRET=1\n');
    const { server, results } = await conversation(tools, [
      [use({ command: 'view', path: '.' }), use({ command: 'view', path: 'src/greet.ts' })],
      [
        use({ command: 'str_replace', path: 'src/greet.ts', old_str: "'Hello'", new_str: "'Hi'" }),
        use({ command: 'create', path: 'src/farewell.ts', file_text: 'export const bye = 1;\n' }),
        use({ command: 'insert', path: 'src/greet.ts', insert_line: 0, insert_text: '// greeting' }),
        use({ command: 'view', path: 'src/greet.ts', view_range: [4, -1] }),
      ],
    ]);

    const offered = server.requests[0]!.body.tools;
    expect(offered).toEqual([{ type: 'text_editor_20250728', name: NAME, max_characters: 10_000 }]);

    expect(
      results.every((result) => !result.is_error),
      JSON.stringify(results),
    ).toBe(true);
    const listing = String(results[0]!.content);
    expect(listing).toContain('up to 2 levels deep');
    expect(listing).toContain('src/greet.ts');
    expect(listing).toContain('src/deep/');
    expect(listing).not.toContain('deeper/hidden-by-depth');
    expect(listing).not.toContain('.env');
    expect(String(results[1]!.content)).toContain("     2\t  const greeting = 'Hello';");
    expect(await greet()).toBe(`// greeting\n${GREET.replace("'Hello'", "'Hi'")}`);
    expect(await readFile(join(root, 'src/farewell.ts'), 'utf8')).toBe('export const bye = 1;\n');
    const tail = String(results[5]!.content);
    expect(tail).toContain("     4\t  return greeting + ', ' + name + '!';");
    expect(tail).toContain('     5\t}');
    expect(tail).not.toContain('     3\t');
  });

  it('answers errors in the documentation words, with editgate guidance; nothing written', async () => {
    const { tools, greet } = await greetWorkspace();
    const { results } = await conversation(tools, [
      [
        use({ command: 'view', path: 'src/greet.ts' }),
        use({ command: 'str_replace', path: 'src/greet.ts', old_str: 'greeting', new_str: 'x' }),
        use({ command: 'str_replace', path: 'src/greet.ts', old_str: 'Howdy', new_str: 'x' }),
        use({ command: 'view', path: 'missing.ts' }),
        use({ command: 'create', path: '../outside.ts', file_text: 'x' }),
      ],
    ]);
    expect(results.map((result) => Boolean(result.is_error))).toEqual([false, true, true, true, true]);
    expect(String(results[1]!.content)).toMatch(
      /^Error: No replacement was performed\. Multiple occurrences of old_str/,
    );
    expect(String(results[1]!.content)).toMatch(/AMBIGUOUS.*lines? 2.*3/s);
    expect(String(results[2]!.content)).toMatch(
      /^Error: No replacement was performed, old_str `Howdy` did not appear verbatim/,
    );
    expect(String(results[3]!.content)).toMatch(/^Error: The path missing\.ts does not exist\./);
    expect(String(results[4]!.content)).toMatch(/OUTSIDE_ROOT/);
    expect(await greet()).toBe(GREET);
  });

  it('text_editor_20250124 (str_replace_editor) has undo_edit', async () => {
    const { tools, greet } = await greetWorkspace();
    const editor = 'str_replace_editor';
    const { server, results } = await conversation(
      tools,
      [
        [use({ command: 'view', path: 'src/greet.ts' }, editor)],
        [use({ command: 'str_replace', path: 'src/greet.ts', old_str: "'Hello'", new_str: "'Hey'" }, editor)],
        [use({ command: 'undo_edit', path: 'src/greet.ts' }, editor)],
      ],
      'text_editor_20250124',
    );
    expect(server.requests[0]!.body.tools).toEqual([{ type: 'text_editor_20250124', name: editor }]);
    expect(
      results.every((result) => !result.is_error),
      JSON.stringify(results),
    ).toBe(true);
    expect(await greet()).toBe(GREET);
  });

  it('a folder view leaves out what read policy denies and what the sandbox denies; an "ask" entry is listed', async () => {
    const { root } = await greetWorkspace();
    for (const name of ['secrets/key.txt', 'src/app.env', 'src/notes.md', 'src/ask-me.ts', 'build/out.js'])
      await mkdir(join(root, name, '..'), { recursive: true }).then(() => writeFile(join(root, name), 'x\n'));
    const tools = createEditTools({
      root,
      approve: 'allow',
      deny: ['build/**'],
      policy: {
        rules: [
          { path: 'secrets/**', action: 'deny' },
          { tool: 'read_file', path: '**/*.env', action: 'deny' },
          { tool: 'read_file', path: 'src/ask-me.ts', action: 'ask' },
          // A rule for changes only does not hide a file from reading.
          { tool: 'edit_file', path: 'src/notes.md', action: 'deny' },
        ],
      },
    });
    const { results } = await conversation(tools, [[use({ command: 'view', path: '.' })]]);
    const listing = String(results[0]!.content);
    expect(listing).toContain('src/greet.ts');
    expect(listing).toContain('src/notes.md');
    expect(listing).toContain('src/ask-me.ts');
    expect(listing).not.toContain('secrets');
    expect(listing).not.toContain('app.env');
    expect(listing).not.toContain('build');
    // Viewing the hidden file itself is refused as before.
    const direct = await conversation(tools, [[use({ command: 'view', path: 'src/app.env' })]]);
    expect(direct.results[0]!.is_error).toBe(true);
  });
});
