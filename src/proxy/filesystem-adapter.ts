/**
 * The built-in adapter for the reference filesystem MCP server (@modelcontextprotocol/server-filesystem,
 * which names itself "secure-filesystem-server"), as of its version 2026.8.31. Each tool is known by its
 * name and the hash of its input schema; a tool whose schema differs is not covered and falls back to the
 * generic rules.
 *
 * What the server does, and so what editgate shows:
 * - write_file writes `content` as UTF-8, byte for byte: the diff is the file against that. It is also how
 *   the proxy writes the part of a change a person accepted hunk by hunk (write_file's or edit_file's), as
 *   the exact bytes rebuilt from those hunks.
 * - edit_file reads the file as UTF-8, turns CRLF into LF, and replaces each oldText, exactly or, failing
 *   that, line by line ignoring leading and trailing whitespace (re-indenting the new text). That is not a
 *   plain replacement, so editgate asks the server for its own preview (dryRun) and applies that diff to
 *   the file as it is; `dryRun: true` from the model writes nothing and goes through as it is.
 * - move_file and create_directory change the tree, not a file's text: a card, with their paths checked.
 * - The read tools read (or list, or search) the `path` they are given (`paths` for read_multiple_files):
 *   those are checked as editgate's own reads are (roots, deny globs, read policy) before the call goes on,
 *   and the listings leave out what editgate's own would (filesystem-listings.ts).
 * - Relative paths resolve against the server's allowed directories, which it lists itself.
 */
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EditgateError } from '../core/errors.js';
import { entryLines, foundPaths, treeEntries } from './filesystem-listings.js';
import { expandHome } from './home-path.js';
import {
  type Args,
  CannotShow,
  type ListingFilter,
  type PlanContext,
  type ReadTarget,
  resultText,
  type ToolClass,
  utf8Exactly,
  type WritePlan,
} from './tool-class.js';
import { applyUnifiedPatch, PatchError, parseUnifiedPatch } from './unified-patch.js';

export interface ServerAdapter {
  /** The server's name as it gives it in its initialize result (serverInfo.name). */
  server: string;
  /** What the person is told the diff is based on. */
  label: string;
  /** Tool name -> the schema hash it is known by, and how it is treated. */
  tools: Record<string, { schemaHash: string; class: ToolClass }>;
}

const LABEL = 'editgate’s built-in adapter for the reference filesystem server';

function inside(folder: string, candidate: string): boolean {
  const relative = path.relative(folder, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** The server's own listing: "Allowed directories:" and one folder a line. */
async function allowedDirectories(context: PlanContext): Promise<string[]> {
  const result = await context.callUpstream('list_allowed_directories', {});
  if (result.isError) return [];
  const [heading, ...folders] = resultText(result).split('\n');
  if (!heading?.startsWith('Allowed directories')) return [];
  return folders.map((folder) => folder.trim()).filter((folder) => path.isAbsolute(folder));
}

/** The absolute path the server will use for `given`, or undefined when that cannot be known. */
async function serverPath(given: unknown, context: PlanContext): Promise<string | undefined> {
  if (typeof given !== 'string' || given.trim() === '') return undefined;
  const expanded = expandHome(given);
  if (path.isAbsolute(expanded)) return path.resolve(expanded);
  const folders = await allowedDirectories(context);
  if (folders.length === 0) return undefined;
  const home = folders.find((folder) => inside(folder, path.resolve(folder, expanded))) ?? folders[0]!;
  return path.resolve(home, expanded);
}

function unknownPath(given: unknown): WritePlan {
  return {
    kind: 'card',
    note: `editgate cannot tell which file ${JSON.stringify(given)} names for this server (a relative path, and the server did not list its allowed directories), so it cannot show a diff.`,
  };
}

async function planWriteFile(args: Args, context: PlanContext): Promise<WritePlan> {
  if (typeof args.content !== 'string' || typeof args.path !== 'string') {
    return { kind: 'forward', why: 'the arguments are not what write_file takes; the server refuses them' };
  }
  const target = await serverPath(args.path, context);
  if (target === undefined) return unknownPath(args.path);
  const bytes = Buffer.from(args.content, 'utf8');
  return { kind: 'write', path: target, expected: () => bytes };
}

/** The diff inside the server's answer to a dry run: a fenced ```diff block. */
function previewDiff(result: CallToolResult): string {
  const text = resultText(result);
  const fenced = /^(`{3,})diff\n([\s\S]*?)\1\s*$/.exec(text);
  if (!fenced) throw new PatchError('the dry run did not answer with a diff');
  return fenced[2]!;
}

async function planEditFile(args: Args, context: PlanContext): Promise<WritePlan> {
  if (args.dryRun === true) return { kind: 'forward', why: 'a dry run writes nothing' };
  if (typeof args.path !== 'string' || !Array.isArray(args.edits)) {
    return { kind: 'forward', why: 'the arguments are not what edit_file takes; the server refuses them' };
  }
  const target = await serverPath(args.path, context);
  if (target === undefined) return unknownPath(args.path);
  const preview = await context.callUpstream('edit_file', { ...args, dryRun: true });
  if (preview.isError) return { kind: 'failed', result: preview };
  let hunks: ReturnType<typeof parseUnifiedPatch>;
  try {
    hunks = parseUnifiedPatch(previewDiff(preview));
  } catch (error) {
    return {
      kind: 'card',
      note: `editgate could not read the server's preview: ${(error as Error).message}.`,
      path: target,
    };
  }
  return {
    kind: 'write',
    path: target,
    expected: (current) => {
      if (current === null) throw new CannotShow('the file does not exist');
      // What the server edits: the file read as UTF-8 with CRLF turned into LF.
      const text = current.toString('utf8').replace(/\r\n/g, '\n');
      try {
        return Buffer.from(applyUnifiedPatch(text, hunks), 'utf8');
      } catch (error) {
        if (!(error instanceof PatchError)) throw error;
        throw new EditgateError(
          'STALE',
          `${args.path} changed while editgate was getting the server's preview of this edit; nothing was done. Call edit_file again.`,
          { path: args.path },
        );
      }
    },
  };
}

/** Tree changes: a card, with the paths the server will use so that roots and deny globs apply. */
function treeChange(...keys: string[]): ToolClass {
  return {
    kind: 'card',
    basis: `it moves or creates files and folders (${LABEL})`,
    paths: async (args, context) => {
      const paths: string[] = [];
      for (const key of keys) {
        const target = await serverPath(args[key], context);
        if (target !== undefined) paths.push(target);
      }
      return paths;
    },
  };
}

/**
 * Reads: relayed once each path the call reads (the `path` argument, or each of `paths`) passes the guard
 * and read policy, as editgate's own read tools' paths do. A folder that is listed or searched is checked
 * as a folder.
 */
function reads(key: 'path' | 'paths', listing?: ListingFilter): ToolClass {
  return {
    kind: 'read-only',
    basis: LABEL,
    ...(listing ? { listing } : {}),
    reads: async (args, context) => {
      const given = key === 'paths' && Array.isArray(args.paths) ? args.paths : [args[key]];
      const targets: ReadTarget[] = [];
      for (const each of given) {
        // The server refuses what is not a path; nothing to check.
        if (typeof each !== 'string' || each.trim() === '') continue;
        const target = await serverPath(each, context);
        if (target === undefined) {
          return {
            unknown: `editgate cannot tell which file ${JSON.stringify(each)} names for this server (a relative path, and the server did not list its allowed directories), so it cannot check that it may be read. Give an absolute path.`,
          };
        }
        targets.push({ path: target, scope: 'roots' });
      }
      return targets;
    },
  };
}

const READS_PATH = reads('path');

/** The folder a listing lists: its one target. */
const inFolder =
  (filter: typeof entryLines): ListingFilter =>
  (result, targets, hidden) =>
    targets[0] ? filter(result, targets[0].path, hidden) : Promise.resolve(result);

export const FILESYSTEM_ADAPTER: ServerAdapter = {
  server: 'secure-filesystem-server',
  label: LABEL,
  tools: {
    write_file: {
      schemaHash: '3f4ea9aef3ff7c58',
      class: {
        kind: 'write',
        basis: LABEL,
        shape: { basis: LABEL, plan: planWriteFile },
        // What it writes is `content` as UTF-8, byte for byte: a part of a change is sent as one.
        writesWhole: (absolute, bytes) => {
          const content = utf8Exactly(bytes);
          return content === undefined ? undefined : { path: absolute, content };
        },
      },
    },
    edit_file: {
      schemaHash: '4cc0b58908790397',
      class: {
        kind: 'write',
        basis: `${LABEL} (the server's own preview, its dryRun)`,
        shape: { basis: `${LABEL} (the server's own preview, its dryRun)`, plan: planEditFile },
      },
    },
    move_file: { schemaHash: '86a360257b78e04a', class: treeChange('source', 'destination') },
    create_directory: { schemaHash: '923b083c9bcab2e3', class: treeChange('path') },
    read_file: { schemaHash: 'cab16716cb01686e', class: READS_PATH },
    read_text_file: { schemaHash: 'cab16716cb01686e', class: READS_PATH },
    read_media_file: { schemaHash: '923b083c9bcab2e3', class: READS_PATH },
    read_multiple_files: { schemaHash: '0e92b94a65b9c850', class: reads('paths') },
    list_directory: { schemaHash: '923b083c9bcab2e3', class: reads('path', inFolder(entryLines)) },
    list_directory_with_sizes: {
      schemaHash: '91d802bfadde3933',
      class: reads('path', inFolder(entryLines)),
    },
    directory_tree: { schemaHash: '9ca4777608da75fa', class: reads('path', inFolder(treeEntries)) },
    search_files: {
      schemaHash: 'c2d21abd960fc273',
      class: reads('path', (result, _targets, hidden) => foundPaths(result, hidden)),
    },
    get_file_info: { schemaHash: '923b083c9bcab2e3', class: READS_PATH },
    list_allowed_directories: { schemaHash: 'efddc7bd8bbcef73', class: { kind: 'read-only', basis: LABEL } },
  },
};
