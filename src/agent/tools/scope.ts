import type { Dirent } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { type DenyRule, denyRules } from '../../workspace/guard.js';
import { type AgentToolResult, failed } from './agent-tool.js';
import { IgnoreRules } from './gitignore.js';

/**
 * The part of the workspace the exploration tools (list_dir, glob, grep) and bash's change tracking may
 * see: inside the root, never a denied path (the guard's rules, `denyRules`: the config's `deny` plus
 * `.git` and editgate.config.json whatever it says, as for the file tools), and, for walks, not what
 * .gitignore ignores. Symbolic links are listed but never followed, so a
 * walk cannot leave the root through one.
 */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ScopePath {
  absolute: string;
  /** Root-relative, '/'-separated; '' for the root. */
  relative: string;
}

export interface WalkEntry extends ScopePath {
  isDir: boolean;
}

export class WorkspaceScope {
  private readonly deny: readonly DenyRule[];

  private constructor(
    readonly root: string,
    deny: readonly string[],
  ) {
    this.deny = denyRules(deny);
  }

  static async create(root: string, deny: readonly string[]): Promise<WorkspaceScope> {
    return new WorkspaceScope(await realpath(path.resolve(root)), deny);
  }

  denied(relative: string): boolean {
    return relative !== '' && this.deny.some((rule) => rule.test(relative));
  }

  /** A folder (default: the root) given by the model, checked to be inside the root and not denied. */
  async resolveFolder(input: unknown): Promise<ScopePath> {
    const entry = this.lexical(input);
    let real: string;
    try {
      real = await realpath(entry.absolute);
    } catch {
      throw new ToolError(
        'FILE_NOT_FOUND',
        `'${entry.relative || '.'}' does not exist. List the folder above it with list_dir.`,
      );
    }
    const inside = this.relativeOf(real);
    if (inside === undefined) throw outside();
    if (!(await stat(real)).isDirectory()) {
      throw new ToolError(
        'INVALID_INPUT',
        `'${entry.relative}' is a file, not a folder. Read it with read_file.`,
      );
    }
    if (this.denied(inside)) throw deniedError(inside);
    return { absolute: real, relative: inside };
  }

  private lexical(input: unknown): ScopePath {
    const given = input === undefined || input === null || input === '' ? '.' : input;
    if (typeof given !== 'string' || given.includes('\0')) {
      throw new ToolError('INVALID_INPUT', 'path must be a folder path relative to the workspace root.');
    }
    const absolute = path.resolve(this.root, given);
    const relative = this.relativeOf(absolute);
    if (relative === undefined) throw outside();
    if (this.denied(relative)) throw deniedError(relative);
    return { absolute, relative };
  }

  private relativeOf(absolute: string): string | undefined {
    const relative = path.relative(this.root, absolute);
    if (relative === '') return '';
    if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
    return relative.split(path.sep).join('/');
  }

  /** The .gitignore rules that apply inside `folder` (those of the root and every folder down to it). */
  async rulesFor(folder: ScopePath): Promise<IgnoreRules> {
    let rules = await withGitignore(IgnoreRules.empty(), this.root, '');
    if (folder.relative === '') return rules;
    const parts = folder.relative.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const relative = parts.slice(0, i).join('/');
      rules = await withGitignore(rules, path.join(this.root, relative), relative);
    }
    return rules;
  }

  /**
   * Every entry under `folder`, depth first, names in order: not denied, not ignored, links not followed.
   * Stops when `shouldStop` says so (results are bounded by the caller).
   */
  async *walk(folder: ScopePath, shouldStop: () => boolean = () => false): AsyncGenerator<WalkEntry> {
    const start = await this.rulesFor(folder);
    const stack: { dir: ScopePath; rules: IgnoreRules }[] = [{ dir: folder, rules: start }];
    while (stack.length > 0 && !shouldStop()) {
      const { dir, rules } = stack.pop()!;
      const entries = await this.list(dir, rules);
      const folders: { dir: ScopePath; rules: IgnoreRules }[] = [];
      for (const entry of entries) {
        if (shouldStop()) return;
        yield entry;
        if (entry.isDir) {
          folders.push({ dir: entry, rules: await withGitignore(rules, entry.absolute, entry.relative) });
        }
      }
      // Depth first, in name order: push in reverse so the first folder is walked next.
      for (let i = folders.length - 1; i >= 0; i--) stack.push(folders[i]!);
    }
  }

  /** The visible entries of one folder, sorted by name; `ignored` counts those .gitignore hides. */
  async list(
    dir: ScopePath,
    rules?: IgnoreRules,
  ): Promise<WalkEntry[] & { ignored?: number; links?: string[] }> {
    const effective = rules ?? (await this.rulesFor(dir));
    let dirents: Dirent[];
    try {
      dirents = await readdir(dir.absolute, { withFileTypes: true });
    } catch {
      return [];
    }
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const result: WalkEntry[] & { ignored?: number; links?: string[] } = [];
    let ignored = 0;
    const links: string[] = [];
    for (const dirent of dirents) {
      const relative = dir.relative === '' ? dirent.name : `${dir.relative}/${dirent.name}`;
      if (this.denied(relative)) continue;
      if (dirent.isSymbolicLink()) {
        links.push(relative);
        continue;
      }
      const isDir = dirent.isDirectory();
      if (!isDir && !dirent.isFile()) continue;
      if (effective.ignores(relative, isDir)) {
        ignored++;
        continue;
      }
      result.push({ absolute: path.join(dir.absolute, dirent.name), relative, isDir });
    }
    result.ignored = ignored;
    result.links = links;
    return result;
  }
}

async function withGitignore(rules: IgnoreRules, folder: string, relative: string): Promise<IgnoreRules> {
  try {
    return rules.with(relative, await readFile(path.join(folder, '.gitignore'), 'utf8'));
  } catch {
    return rules;
  }
}

function outside(): ToolError {
  return new ToolError(
    'OUTSIDE_ROOT',
    'That path is outside the workspace root; only paths inside it can be used.',
  );
}

function deniedError(relative: string): ToolError {
  return new ToolError(
    'DENIED_POLICY',
    `'${relative}' is denied by the workspace's rules and cannot be listed or searched.`,
  );
}

/** The folder a search or a listing starts from, as the exploration tools' schemas describe it. */
export const FOLDER_PROPERTY = {
  type: 'string',
  description: 'Folder, relative to the workspace root. Default ".".',
} as const;

export function offsetProperty(what: string): Record<string, unknown> {
  return { type: 'integer', minimum: 0, description: `Skip this many ${what} (paging).` };
}

/** Runs an exploration tool: a ToolError (outside the root, denied, not found) becomes its failed result. */
export async function explore(tool: string, run: () => Promise<AgentToolResult>): Promise<AgentToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ToolError)
      return failed(error.code, `${tool} failed (${error.code}): ${error.message}`);
    throw error;
  }
}
