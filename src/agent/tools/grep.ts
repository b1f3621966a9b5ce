import { spawn, spawnSync } from 'node:child_process';
import { open } from 'node:fs/promises';
import { RE2JS } from 're2js';
import { compileGlob } from '../../core/glob.js';
import { type AgentTool, failed, numberInput, textInput } from './agent-tool.js';
import {
  explore,
  FOLDER_PROPERTY,
  offsetProperty,
  type ScopePath,
  ToolError,
  type WorkspaceScope,
} from './scope.js';

const PAGE = 100;
const LINE_CHARS = 240;
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const MAX_SCANNED = 50_000;

interface GrepQuery {
  pattern: string;
  folder: ScopePath;
  include?: string;
  ignoreCase: boolean;
  /** Matches wanted: offset + page + 1 (one more says there are more). */
  want: number;
  signal: AbortSignal;
}

interface GrepAnswer {
  lines: string[];
  /** The search stopped before the end (enough matches, or the scan bound). */
  truncated: boolean;
}

export interface GrepOptions {
  /** Use ripgrep when it is installed (default); false forces the JavaScript search. */
  ripgrep?: boolean;
}

export function grepTool(scope: WorkspaceScope, options: GrepOptions = {}): AgentTool {
  return {
    name: 'grep',
    description: [
      'Search file contents for a regular expression; answers "path:line: text" per matching line.',
      'Files that .gitignore ignores and binary files are skipped. At most 100 matches per call, sorted by path; use offset to see more.',
      'The pattern is a regular expression in RE2 syntax (as ripgrep reads it): no backreferences or lookaround.',
    ].join('\n'),
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Regular expression to search for.' },
        path: FOLDER_PROPERTY,
        glob: {
          type: 'string',
          description: 'Only files whose path (relative to `path`) matches this glob, e.g. "**/*.ts".',
        },
        ignore_case: { type: 'boolean', description: 'Match without regard to case.' },
        offset: offsetProperty('matches'),
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    changes: false,
    target: (input) => textInput(input, 'pattern') ?? '',
    async run(input, context) {
      const pattern = textInput(input, 'pattern');
      if (!pattern) return failed('INVALID_INPUT', 'grep needs a "pattern" to search for.');
      const offset = numberInput(input, 'offset', 0);
      return explore('grep', async () => {
        const folder = await scope.resolveFolder(input.path);
        const query: GrepQuery = {
          pattern,
          folder,
          include: textInput(input, 'glob'),
          ignoreCase: input.ignore_case === true,
          want: offset + PAGE + 1,
          signal: context.signal,
        };
        const answer =
          options.ripgrep !== false && ripgrepAvailable()
            ? await ripgrep(scope, query)
            : await jsGrep(scope, query);
        const page = answer.lines.slice(offset, offset + PAGE);
        const more = answer.lines.length > offset + PAGE;
        const notes: string[] = [];
        if (more) notes.push(`More matches follow. Next: grep with offset=${offset + PAGE}.`);
        else if (answer.truncated)
          notes.push(`The search stopped after ${MAX_SCANNED} files: search a smaller folder for the rest.`);
        const body = page.length > 0 ? page.join('\n') : `No matches for ${pattern}.`;
        const count = more ? `${offset + PAGE}+` : String(answer.lines.length);
        return {
          ok: true,
          message: `${body}${notes.length ? `\n(${notes.join(' ')})` : ''}`,
          summary: `${count} ${count === '1' ? 'match' : 'matches'}`,
        };
      });
    },
  };
}

let rgChecked: boolean | undefined;

export function ripgrepAvailable(): boolean {
  rgChecked ??= spawnSync('rg', ['--version'], { stdio: 'ignore' }).status === 0;
  return rgChecked;
}

function clip(text: string): string {
  return text.length > LINE_CHARS ? `${text.slice(0, LINE_CHARS)}…` : text;
}

function ripgrep(scope: WorkspaceScope, query: GrepQuery): Promise<GrepAnswer> {
  const args = [
    '--line-number',
    '--no-heading',
    '--color=never',
    // .gitignore counts in any folder, as in the JavaScript walk, and dot files are searched as there.
    '--no-require-git',
    '--hidden',
    '--sort=path',
    '--no-config',
  ];
  if (query.ignoreCase) args.push('--ignore-case');
  if (query.include) args.push('--glob', query.include);
  // The workspace's deny rules (globs) as rg globs: `!GLOB` excludes.
  args.push('--glob', '!.git');
  args.push('-e', query.pattern, '--', query.folder.relative || '.');
  return new Promise((resolve, reject) => {
    const child = spawn('rg', args, { cwd: scope.root, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let pending = '';
    let stderr = '';
    let stopped = false;
    const stop = () => {
      stopped = true;
      child.kill();
    };
    query.signal.addEventListener('abort', stop, { once: true });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const line of parts) {
        const path = line.slice(0, line.indexOf(':'));
        if (scope.denied(path.replace(/^\.\//, ''))) continue;
        lines.push(clip(line.replace(/^\.\//, '').replace(/^([^:]*:\d+):/, '$1: ')));
        if (lines.length >= query.want && !stopped) stop();
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      query.signal.removeEventListener('abort', stop);
      if (!stopped && code === 2 && lines.length === 0) {
        reject(new ToolError('INVALID_INPUT', `rg could not search: ${stderr.trim().slice(0, 300)}`));
        return;
      }
      resolve({ lines: lines.slice(0, query.want), truncated: stopped });
    });
  });
}

async function jsGrep(scope: WorkspaceScope, query: GrepQuery): Promise<GrepAnswer> {
  // RE2 (re2js), never JavaScript's RegExp: the pattern comes from a model, the lines from a repository that
  // may be hostile, and a backtracking engine stalls the process on `(a|a)*b` against a line of 40 `a`s (Esc
  // cannot interrupt a running RegExp). RE2 matches in time linear in the line; it is ripgrep's syntax too.
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(query.pattern, query.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    throw new ToolError(
      'INVALID_INPUT',
      `The pattern is not a valid regular expression: ${(error as Error).message}`,
    );
  }
  const include = query.include ? compileGlob(query.include) : undefined;
  const prefix = query.folder.relative === '' ? '' : `${query.folder.relative}/`;
  const lines: string[] = [];
  let scanned = 0;
  const stop = () => query.signal.aborted || lines.length >= query.want || scanned >= MAX_SCANNED;
  const files: { absolute: string; relative: string }[] = [];
  for await (const entry of scope.walk(query.folder, stop)) {
    scanned++;
    if (entry.isDir) continue;
    if (include && !include(entry.relative.slice(prefix.length))) continue;
    files.push(entry);
  }
  files.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
  for (const file of files) {
    if (query.signal.aborted || lines.length >= query.want) break;
    const text = await readText(file.absolute);
    if (text === undefined) continue;
    const fileLines = text.split(/\r?\n/);
    for (let i = 0; i < fileLines.length && lines.length < query.want; i++) {
      if (regex.test(fileLines[i]!)) lines.push(clip(`${file.relative}:${i + 1}: ${fileLines[i]}`));
    }
  }
  return { lines, truncated: lines.length >= query.want || scanned >= MAX_SCANNED };
}

/** The file as text, or undefined when it is binary (a NUL in its first 8 KiB) or too big to search. */
async function readText(path: string): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, 'r');
    const stats = await handle.stat();
    if (stats.size > MAX_FILE_BYTES) return undefined;
    const bytes = await handle.readFile();
    if (bytes.subarray(0, 8192).includes(0)) return undefined;
    return bytes.toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => {});
  }
}
