/**
 * Anthropic's text editor tool (`str_replace_based_edit_tool`, `text_editor_20250728` and `_20250429`;
 * `str_replace_editor`, `text_editor_20250124`, which adds `undo_edit`), executed through editgate's tools
 * and so through the gate: read-before-edit, stale checks, approval, hooks, audit and undo all apply. Each
 * command becomes the editgate call that does the same thing:
 *   view (a file)    read_file (numbered lines, `view_range` [start, end], end -1 for the end of the file)
 *   view (a folder)  the entries two levels deep, hidden ones (and those the sandbox denies) left out
 *   create           write_file          str_replace   edit_file
 *   insert           edit_lines (after line `insert_line`; 0 is the top)          undo_edit   undo_edit
 * Refusals start with the words of the tool's documentation, then editgate's guidance (match count and
 * lines, closest region, what to do next).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isEditgateError } from '../core/errors.js';
import type { EditTools } from '../tools/index.js';
import type { ToolResult } from '../tools/result.js';

export type TextEditorVersion = 'text_editor_20250728' | 'text_editor_20250429' | 'text_editor_20250124';

/** The tool name each version has. */
export function textEditorName(version: TextEditorVersion): string {
  return version === 'text_editor_20250124' ? 'str_replace_editor' : 'str_replace_based_edit_tool';
}

export const TEXT_EDITOR_NAMES: readonly string[] = ['str_replace_based_edit_tool', 'str_replace_editor'];

/** editgate's own file tools, which the text editor replaces when it is offered. */
export const FILE_TOOLS: readonly string[] = [
  'read_file',
  'write_file',
  'edit_file',
  'multi_edit',
  'edit_lines',
  'apply_patch',
  'undo_edit',
];

export interface TextEditorOptions {
  /** `max_characters` of the tool definition: a view's text is cut there (with a note saying so). */
  maxCharacters?: number;
}

type Input = Record<string, unknown>;
type Failure = Extract<ToolResult, { ok: false }>;

/** One text editor call, as editgate runs it: ok with the text for the model, or an error text. */
export async function runTextEditor(
  tools: EditTools,
  input: unknown,
  options: TextEditorOptions = {},
): Promise<{ ok: boolean; text: string }> {
  const call = (typeof input === 'object' && input !== null ? input : {}) as Input;
  const path = typeof call.path === 'string' ? call.path : '';
  const answer = (result: ToolResult, words?: (result: Failure) => string | undefined) =>
    result.ok
      ? { ok: true, text: result.message }
      : { ok: false, text: `Error: ${words?.(result) ?? ''}${words?.(result) ? ' ' : ''}${result.message}` };
  switch (call.command) {
    case 'view': {
      const range = call.view_range;
      const viewInput: Input = { file_path: path };
      if (Array.isArray(range) && range.length === 2) {
        const [start, end] = range as number[];
        viewInput.offset = start;
        if (end !== -1 && typeof end === 'number' && typeof start === 'number')
          viewInput.limit = end - start + 1;
        else viewInput.limit = Number.MAX_SAFE_INTEGER;
      }
      const result = await tools.execute('read_file', viewInput);
      if (!result.ok && result.code === 'IS_DIRECTORY') return listFolder(tools, path);
      const shown = answer(result, (failed) =>
        failed.code === 'FILE_NOT_FOUND' ? `The path ${path} does not exist.` : undefined,
      );
      return cut(shown, options.maxCharacters);
    }
    case 'create':
      return answer(await tools.execute('write_file', { file_path: path, content: call.file_text }));
    case 'str_replace':
      return answer(
        await tools.execute('edit_file', {
          file_path: path,
          old_string: call.old_str,
          new_string: call.new_str ?? '',
        }),
        (failed) => {
          if (failed.code === 'NOT_FOUND')
            return `No replacement was performed, old_str \`${String(call.old_str)}\` did not appear verbatim in ${path}.`;
          if (failed.code === 'AMBIGUOUS')
            return `No replacement was performed. Multiple occurrences of old_str \`${String(call.old_str)}\` in ${path}. Please ensure it is unique.`;
          return undefined;
        },
      );
    case 'insert': {
      const text = String(call.insert_text ?? call.new_str ?? '');
      const line = Number(call.insert_line);
      return answer(
        await tools.execute('edit_lines', {
          file_path: path,
          edits: [
            {
              range: [line + 1, line + 1],
              replacement: text.endsWith('\n') || text === '' ? text : `${text}\n`,
            },
          ],
        }),
        (failed) =>
          failed.code === 'INVALID_RANGE'
            ? `Invalid \`insert_line\` parameter: ${String(call.insert_line)}. It should be within the range of lines of the file.`
            : undefined,
      );
    }
    case 'undo_edit':
      return answer(await tools.execute('undo_edit', { file_path: path }));
    default:
      return {
        ok: false,
        text: `Error: Unrecognized command ${JSON.stringify(call.command)}. The allowed commands are: view, create, str_replace, insert${'undo_edit' in call || call.command === 'undo_edit' ? ', undo_edit' : ''}.`,
      };
  }
}

/** A view cut at max_characters, saying so. */
function cut(shown: { ok: boolean; text: string }, max: number | undefined): { ok: boolean; text: string } {
  if (!max || shown.text.length <= max) return shown;
  return {
    ok: shown.ok,
    text: `${shown.text.slice(0, max)}\n[cut at ${max} characters: view a smaller view_range to see the rest]`,
  };
}

/**
 * A folder's entries two levels deep, hidden ones left out, and those the sandbox denies (deny globs) or
 * read policy keeps from being read (a deny rule for reading them): a name the model may not read is not
 * shown to it either.
 */
async function listFolder(tools: EditTools, path: string): Promise<{ ok: boolean; text: string }> {
  const gate = await tools.gate();
  const { guard } = gate.workspace;
  const allowed = async (relative: string) => {
    try {
      return !gate.readDenied(await guard.resolve(relative));
    } catch (error) {
      // A folder inside the workspace and not denied is refused only as a folder.
      return isEditgateError(error, 'IS_DIRECTORY') && !gate.readDenied({ relative });
    }
  };
  const base = path.replace(/\/+$/, '') || '.';
  const entries: string[] = [];
  const walk = async (relative: string, depth: number) => {
    let names: { name: string; isDirectory(): boolean }[];
    try {
      names = await readdir(join(guard.roots[0]!, relative), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of names.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.')) continue;
      const child = relative === '.' ? entry.name : `${relative}/${entry.name}`;
      if (!(await allowed(child))) continue;
      entries.push(entry.isDirectory() ? `${child}/` : child);
      if (entry.isDirectory() && depth < 2) await walk(child, depth + 1);
    }
  };
  await walk(base, 1);
  return {
    ok: true,
    text: `Here are the files and directories up to 2 levels deep in ${base}, excluding hidden items:\n${entries.join('\n')}`,
  };
}
