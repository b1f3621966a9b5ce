/**
 * The reference filesystem server's listings, with what a listing of editgate's own would not show taken
 * out: entries outside the roots, under a deny glob or `.git`, or denied to every read by read policy. A
 * name is not its content, but editgate's own listings hide such names, and a proxied server's must not
 * show more. Each tool's format, as of the adapter's version:
 *
 * - list_directory: one `[FILE] name` or `[DIR] name` a line;
 * - list_directory_with_sizes: the same with the name padded and a size after it, then totals;
 * - directory_tree: a JSON array of `{ name, type, children? }`, 2-space indented;
 * - search_files: one absolute path a line, or "No matches found".
 *
 * The server also puts the text in `structuredContent.content`: both are filtered alike.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HiddenFromListing } from './tool-class.js';

/** `result` with each text (the blocks and structuredContent.content) passed through `filter`. */
async function filtered(
  result: CallToolResult,
  filter: (text: string) => Promise<string>,
): Promise<CallToolResult> {
  if (result.isError) return result;
  const content = await Promise.all(
    result.content.map(async (block) =>
      block.type === 'text' ? { ...block, text: await filter(block.text) } : block,
    ),
  );
  const structured = result.structuredContent as { content?: unknown } | undefined;
  if (typeof structured?.content !== 'string') return { ...result, content };
  return {
    ...result,
    content,
    structuredContent: { ...structured, content: await filter(structured.content) },
  };
}

/** The names in `folder` a listing must leave out. */
async function hiddenNames(folder: string, hidden: HiddenFromListing): Promise<Set<string>> {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return new Set();
  }
  const out = new Set<string>();
  for (const name of names) if (await hidden(path.join(folder, name))) out.add(name);
  return out;
}

/**
 * list_directory and list_directory_with_sizes: an entry's line is left out when its name (the whole rest
 * of the line, or the part before the padding and size) is hidden. A hidden name that is the start of a
 * visible one followed by a space may hide that line too: more left out, never less.
 */
export async function entryLines(
  result: CallToolResult,
  folder: string,
  hidden: HiddenFromListing,
): Promise<CallToolResult> {
  const names = await hiddenNames(folder, hidden);
  if (names.size === 0) return result;
  return filtered(result, async (text) =>
    text
      .split('\n')
      .filter((line) => {
        const entry = /^\[(?:FILE|DIR)\] (.*)$/.exec(line);
        if (!entry) return true;
        const rest = entry[1]!;
        return ![...names].some((name) => rest === name || rest.startsWith(`${name} `));
      })
      .join('\n'),
  );
}

interface TreeEntry {
  name?: unknown;
  children?: unknown;
}

async function prune(entries: unknown, folder: string, hidden: HiddenFromListing): Promise<unknown> {
  if (!Array.isArray(entries)) return entries;
  const kept: unknown[] = [];
  for (const entry of entries as TreeEntry[]) {
    if (typeof entry?.name !== 'string') continue; // not the format known: shown as nothing
    const where = path.join(folder, entry.name);
    if (await hidden(where)) continue;
    kept.push(
      Array.isArray(entry.children)
        ? { ...entry, children: await prune(entry.children, where, hidden) }
        : entry,
    );
  }
  return kept;
}

/** directory_tree: hidden entries (and everything under them) taken out of the tree. */
export function treeEntries(
  result: CallToolResult,
  folder: string,
  hidden: HiddenFromListing,
): Promise<CallToolResult> {
  return filtered(result, async (text) => {
    let tree: unknown;
    try {
      tree = JSON.parse(text);
    } catch {
      // Not the format known: a listing editgate cannot check is not shown.
      return 'editgate proxy: the listing was not in the form editgate can check, so it is not shown.';
    }
    return JSON.stringify(await prune(tree, folder, hidden), null, 2);
  });
}

/** search_files: hidden paths taken out. */
export function foundPaths(result: CallToolResult, hidden: HiddenFromListing): Promise<CallToolResult> {
  return filtered(result, async (text) => {
    if (text === 'No matches found') return text;
    const kept: string[] = [];
    for (const line of text.split('\n')) {
      if (!path.isAbsolute(line) || !(await hidden(line))) kept.push(line);
    }
    return kept.length > 0 ? kept.join('\n') : 'No matches found';
  });
}
