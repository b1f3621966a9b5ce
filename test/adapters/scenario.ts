import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createEditTools, type EditTools } from '../../src/tools/index.js';
import { onCleanup } from '../cleanup.js';

/**
 * The conversation every adapter test scripts: the model reads src/greet.ts, then makes three edits in one
 * turn (the first ambiguous: `greeting` is on lines 2 and 3; the other two both change the file, so they
 * only succeed when run one after another), then answers.
 */
export const GREET = [
  'export function greet(name: string): string {',
  "  const greeting = 'Hello';",
  "  return greeting + ', ' + name + '!';",
  '}',
  '',
].join('\n');

export const GREET_AFTER = GREET.replace("'Hello'", "'Hi'").replace("+ '!'", "+ '.'");

export const READ = { name: 'read_file', input: { file_path: 'src/greet.ts' } };
export const EDITS = [
  {
    name: 'edit_file',
    input: { file_path: 'src/greet.ts', old_string: 'greeting', new_string: 'salutation' },
  },
  { name: 'edit_file', input: { file_path: 'src/greet.ts', old_string: "'Hello'", new_string: "'Hi'" } },
  { name: 'edit_file', input: { file_path: 'src/greet.ts', old_string: "+ '!'", new_string: "+ '.'" } },
];
export const FINAL_TEXT = 'greet now says Hi.';
export const PROMPT = 'Make greet say Hi, and end with a full stop.';

/** A real temp folder holding src/greet.ts, and editgate tools over it that allow every change. */
export async function greetWorkspace(): Promise<{
  root: string;
  tools: EditTools;
  greet: () => Promise<string>;
}> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'editgate-adapters-')));
  onCleanup(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, 'src'));
  await writeFile(join(root, 'src', 'greet.ts'), GREET);
  return {
    root,
    tools: createEditTools({ root, approve: 'allow' }),
    greet: () => readFile(join(root, 'src', 'greet.ts'), 'utf8'),
  };
}

/** What each tool result of the edit turn must say, in call order. */
export function expectEditTurnMessages(messages: string[]): void {
  expect(messages).toHaveLength(3);
  expect(messages[0]).toMatch(/^edit_file failed \(AMBIGUOUS\)/);
  expect(messages[0]).toContain('lines 2 and 3');
  expect(messages[1]).toMatch(/^Edited src\/greet\.ts/);
  expect(messages[2]).toMatch(/^Edited src\/greet\.ts/);
}

/** The read_file result shows numbered lines. */
export function expectReadMessage(message: string): void {
  expect(message).toContain("     2\t  const greeting = 'Hello';");
}

/** No draft-7 tuple (`items: [...]`) reaches an API: OpenAI, Anthropic and Gemini refuse the request. */
export function expectPortableSchemas(tools: unknown): void {
  expect(JSON.stringify(tools)).not.toMatch(/"items":\[/);
}
