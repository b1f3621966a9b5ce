import type { HLJSApi } from 'highlight.js';
import type { Hunk } from './diff.js';

/**
 * Syntax highlighting by file extension, loaded on first use: highlight.js core and one grammar are
 * imported only when a diff of a known file type is shown in colour, so commands that show no diff never
 * pay for them. The result is per-line token scopes that each diff view (terminal, web page) lays under its
 * own tints.
 */

/** What a token is, for colouring; each front end maps these to its own colours. */
export type SyntaxScope =
  | 'keyword'
  | 'string'
  | 'number'
  | 'comment'
  | 'function'
  | 'type'
  | 'attribute'
  | 'tag'
  | 'meta'
  | 'variable';

export interface ScopeSpan {
  start: number;
  end: number;
  scope: SyntaxScope;
}

/** Scopes for each of `lines`, highlighted together so constructs spanning lines stay coloured. */
export type LineHighlighter = (lines: readonly string[]) => ScopeSpan[][];

type GrammarLoader = () => Promise<{ default: Parameters<HLJSApi['registerLanguage']>[1] }>;

// Each grammar is a separate import, so only the one needed is loaded.
const GRAMMARS: Record<string, GrammarLoader> = {
  typescript: () => import('highlight.js/lib/languages/typescript'),
  javascript: () => import('highlight.js/lib/languages/javascript'),
  json: () => import('highlight.js/lib/languages/json'),
  python: () => import('highlight.js/lib/languages/python'),
  go: () => import('highlight.js/lib/languages/go'),
  rust: () => import('highlight.js/lib/languages/rust'),
  java: () => import('highlight.js/lib/languages/java'),
  kotlin: () => import('highlight.js/lib/languages/kotlin'),
  c: () => import('highlight.js/lib/languages/c'),
  cpp: () => import('highlight.js/lib/languages/cpp'),
  csharp: () => import('highlight.js/lib/languages/csharp'),
  ruby: () => import('highlight.js/lib/languages/ruby'),
  php: () => import('highlight.js/lib/languages/php'),
  swift: () => import('highlight.js/lib/languages/swift'),
  bash: () => import('highlight.js/lib/languages/bash'),
  css: () => import('highlight.js/lib/languages/css'),
  scss: () => import('highlight.js/lib/languages/scss'),
  xml: () => import('highlight.js/lib/languages/xml'),
  markdown: () => import('highlight.js/lib/languages/markdown'),
  yaml: () => import('highlight.js/lib/languages/yaml'),
  ini: () => import('highlight.js/lib/languages/ini'),
  sql: () => import('highlight.js/lib/languages/sql'),
  dockerfile: () => import('highlight.js/lib/languages/dockerfile'),
  makefile: () => import('highlight.js/lib/languages/makefile'),
};

const EXTENSIONS: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  json: 'json',
  jsonc: 'json',
  py: 'python',
  pyi: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  kts: 'kotlin',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  hh: 'cpp',
  cs: 'csharp',
  rb: 'ruby',
  php: 'php',
  swift: 'swift',
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  css: 'css',
  scss: 'scss',
  html: 'xml',
  htm: 'xml',
  xml: 'xml',
  svg: 'xml',
  vue: 'xml',
  md: 'markdown',
  markdown: 'markdown',
  yaml: 'yaml',
  yml: 'yaml',
  toml: 'ini',
  ini: 'ini',
  cfg: 'ini',
  sql: 'sql',
};

const FILE_NAMES: Record<string, string> = {
  dockerfile: 'dockerfile',
  makefile: 'makefile',
  gnumakefile: 'makefile',
};

/** The grammar for a path, by file name or extension; undefined when none is mapped. */
export function languageForPath(path: string): string | undefined {
  const name = (path.split(/[\\/]/).at(-1) ?? '').toLowerCase();
  const byName = FILE_NAMES[name];
  if (byName) return byName;
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return undefined;
  return EXTENSIONS[name.slice(dot + 1)];
}

let core: Promise<HLJSApi> | undefined;
const registered = new Map<string, Promise<boolean>>();

async function loadLanguage(hljs: HLJSApi, language: string): Promise<boolean> {
  let done = registered.get(language);
  if (!done) {
    const loader = GRAMMARS[language];
    done = loader
      ? loader().then(
          (grammar) => {
            hljs.registerLanguage(language, grammar.default);
            return true;
          },
          () => false,
        )
      : Promise.resolve(false);
    registered.set(language, done);
  }
  return done;
}

/**
 * A highlighter for `path`, or undefined when its type is not mapped or highlight.js cannot be loaded:
 * the diff is then shown without syntax colours, never with an error.
 */
export async function loadHighlighter(path: string): Promise<LineHighlighter | undefined> {
  const language = languageForPath(path);
  if (!language) return undefined;
  try {
    core ??= import('highlight.js/lib/core').then((module) => module.default);
    const hljs = await core;
    if (!(await loadLanguage(hljs, language))) return undefined;
    return (lines) => highlightLines(hljs, language, lines);
  } catch {
    return undefined;
  }
}

// Past this much text, highlighting costs more than it helps; such diffs are shown without it.
const MAX_CHARS = 200_000;

function highlightLines(hljs: HLJSApi, language: string, lines: readonly string[]): ScopeSpan[][] {
  const none = () => lines.map(() => []);
  let total = 0;
  for (const line of lines) total += line.length + 1;
  if (total > MAX_CHARS || lines.some((line) => /[\n\r]/.test(line))) return none();
  try {
    const html = hljs.highlight(lines.join('\n'), { language, ignoreIllegals: true }).value;
    const spans = spansFromHtml(html);
    return lines.map((_, i) => spans[i] ?? []);
  } catch {
    return none();
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#x27': "'", '#39': "'" };

/**
 * highlight.js emits HTML: nested `<span class="hljs-…">` around escaped text. This reads it back into
 * per-line spans, taking the innermost scope that has a colour.
 */
export function spansFromHtml(html: string): ScopeSpan[][] {
  const lines: ScopeSpan[][] = [[]];
  const stack: (SyntaxScope | undefined)[] = [];
  let offset = 0;
  const current = (): SyntaxScope | undefined => {
    for (let k = stack.length - 1; k >= 0; k--) if (stack[k]) return stack[k];
    return undefined;
  };
  const emit = (length: number) => {
    const scope = current();
    if (scope && length > 0) {
      const line = lines.at(-1)!;
      const last = line.at(-1);
      if (last && last.scope === scope && last.end === offset) last.end += length;
      else line.push({ start: offset, end: offset + length, scope });
    }
    offset += length;
  };
  const pattern = /<span class="([^"]*)">|<\/span>|&(#x27|#39|amp|lt|gt|quot);|\n|[^<&\n]+/g;
  for (const match of html.matchAll(pattern)) {
    const token = match[0];
    if (match[1] !== undefined) stack.push(scopeForClass(match[1]));
    else if (token === '</span>') stack.pop();
    else if (token === '\n') {
      lines.push([]);
      offset = 0;
    } else if (match[2] !== undefined) emit(ENTITIES[match[2]]!.length);
    else emit(token.length);
  }
  return lines;
}

function scopeForClass(className: string): SyntaxScope | undefined {
  const classes = className.split(/\s+/);
  const main = classes[0]?.replace(/^hljs-/, '') ?? '';
  const sub = classes[1]?.replace(/_+$/, '');
  if (main === 'title') return sub === 'class' ? 'type' : 'function';
  return SCOPES[main];
}

const SCOPES: Record<string, SyntaxScope> = {
  keyword: 'keyword',
  'selector-tag': 'keyword',
  doctag: 'keyword',
  built_in: 'type',
  type: 'type',
  literal: 'number',
  number: 'number',
  string: 'string',
  regexp: 'string',
  char: 'string',
  comment: 'comment',
  quote: 'comment',
  section: 'function',
  attr: 'attribute',
  attribute: 'attribute',
  property: 'attribute',
  name: 'tag',
  tag: 'tag',
  'selector-id': 'tag',
  'selector-class': 'tag',
  meta: 'meta',
  symbol: 'meta',
  bullet: 'meta',
  link: 'meta',
  variable: 'variable',
  'template-variable': 'variable',
};

/**
 * Syntax spans per hunk line. The old side (context and removed lines) and the new side (context and added
 * lines) are each highlighted as one snippet, so a string or comment spanning lines keeps its colour.
 */
export function highlightHunk(hunk: Hunk, highlighter: LineHighlighter): ScopeSpan[][] {
  const result: ScopeSpan[][] = hunk.lines.map(() => []);
  for (const side of ['remove', 'add'] as const) {
    const indexes: number[] = [];
    hunk.lines.forEach((line, i) => {
      if (line.kind === 'context' || line.kind === side) indexes.push(i);
    });
    const spans = highlighter(indexes.map((i) => hunk.lines[i]!.text));
    indexes.forEach((lineIndex, k) => {
      // Context lines take the new side's colours.
      if (side === 'add' || hunk.lines[lineIndex]!.kind !== 'context') result[lineIndex] = spans[k] ?? [];
    });
  }
  return result;
}
