import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Parser } from 'web-tree-sitter';

/**
 * The tree-sitter grammars editgate reads code with: the chat's command policy (bash) and the syntax errors a
 * change adds (syntax.ts). Each is WebAssembly run by web-tree-sitter: no native build, Node 20 and up.
 *
 * Where they come from (all MIT, pinned exactly in package.json as devDependencies whose .wasm files the
 * build copies to dist/grammars/ with their licences, scripts/copy-grammars.mjs, so installing editgate
 * runs no install script): `@vscode/tree-sitter-wasm` (the tree-sitter project's grammars as VS Code ships
 * them, built with tree-sitter 0.25, one package with no install script) for most languages; the tree-sitter
 * project's own packages for C, JSON and HTML, and tree-sitter-grammars' for YAML and TOML, which VS Code's
 * package leaves out; tree-sitter-bash for bash (the chat's policy had it first).
 * `tree-sitter-wasms` was the other candidate: its grammars are 0.20-era (TypeScript without `satisfies`, a
 * YAML grammar web-tree-sitter 0.25 cannot load), so it would report errors in code that is fine.
 */
export type SyntaxLanguage =
  | 'typescript'
  | 'tsx'
  | 'javascript'
  | 'python'
  | 'go'
  | 'rust'
  | 'java'
  | 'c'
  | 'cpp'
  | 'csharp'
  | 'ruby'
  | 'php'
  | 'json'
  | 'yaml'
  | 'toml'
  | 'css'
  | 'html'
  | 'bash';

interface Grammar {
  /** The .wasm file's name, in dist/grammars/ and in its package. */
  file: string;
  /** The package and the folder in it that hold the file when run from the sources. */
  from: string;
}

const VSCODE = '@vscode/tree-sitter-wasm/wasm';

/** Each language's grammar. scripts/copy-grammars.mjs copies these same files. */
export const GRAMMARS: Readonly<Record<SyntaxLanguage, Grammar>> = {
  typescript: { file: 'tree-sitter-typescript.wasm', from: VSCODE },
  tsx: { file: 'tree-sitter-tsx.wasm', from: VSCODE },
  javascript: { file: 'tree-sitter-javascript.wasm', from: VSCODE },
  python: { file: 'tree-sitter-python.wasm', from: VSCODE },
  go: { file: 'tree-sitter-go.wasm', from: VSCODE },
  rust: { file: 'tree-sitter-rust.wasm', from: VSCODE },
  java: { file: 'tree-sitter-java.wasm', from: VSCODE },
  cpp: { file: 'tree-sitter-cpp.wasm', from: VSCODE },
  csharp: { file: 'tree-sitter-c-sharp.wasm', from: VSCODE },
  ruby: { file: 'tree-sitter-ruby.wasm', from: VSCODE },
  php: { file: 'tree-sitter-php.wasm', from: VSCODE },
  css: { file: 'tree-sitter-css.wasm', from: VSCODE },
  c: { file: 'tree-sitter-c.wasm', from: 'tree-sitter-c' },
  json: { file: 'tree-sitter-json.wasm', from: 'tree-sitter-json' },
  html: { file: 'tree-sitter-html.wasm', from: 'tree-sitter-html' },
  yaml: { file: 'tree-sitter-yaml.wasm', from: '@tree-sitter-grammars/tree-sitter-yaml' },
  toml: { file: 'tree-sitter-toml.wasm', from: '@tree-sitter-grammars/tree-sitter-toml' },
  bash: { file: 'tree-sitter-bash.wasm', from: 'tree-sitter-bash' },
};

const BY_EXTENSION: Readonly<Record<string, SyntaxLanguage>> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  py: 'python',
  pyi: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  c: 'c',
  // A header may be C or C++; C++'s grammar reads nearly all C, C's grammar reads no class.
  h: 'cpp',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hh: 'cpp',
  hpp: 'cpp',
  hxx: 'cpp',
  cs: 'csharp',
  rb: 'ruby',
  rake: 'ruby',
  gemspec: 'ruby',
  php: 'php',
  json: 'json',
  yaml: 'yaml',
  yml: 'yaml',
  toml: 'toml',
  css: 'css',
  html: 'html',
  htm: 'html',
  sh: 'bash',
  bash: 'bash',
};

const BY_NAME: Readonly<Record<string, SyntaxLanguage>> = {
  Rakefile: 'ruby',
  Gemfile: 'ruby',
};

/**
 * The language a file is read as, by its name; undefined for a file no grammar reads. JSON with comments
 * or trailing commas (tsconfig.json, .jsonc) is not JSON: only files named `.json` are read, and a
 * tsconfig's own comments are errors already in the file, which a change does not add.
 */
export function languageOfPath(path: string): SyntaxLanguage | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const byName = BY_NAME[name];
  if (byName) return byName;
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return undefined;
  return BY_EXTENSION[name.slice(dot + 1).toLowerCase()];
}

let runtime: Promise<typeof import('web-tree-sitter')> | undefined;
const parsers = new Map<SyntaxLanguage, Promise<Parser>>();

/**
 * A parser for the language, made on first use: nothing here is loaded when editgate starts, only when a
 * change to a file of that language is checked or the chat reads a command line (web-tree-sitter's import
 * is about 30 ms, a grammar 5 to 100 ms). A parser is kept for the process; parsing is synchronous, so
 * callers never share one at the same time.
 */
export function parserFor(language: SyntaxLanguage): Promise<Parser> {
  let parser = parsers.get(language);
  if (!parser) {
    parser = (async () => {
      const { Language, Parser } = await treeSitter();
      const grammar = await Language.load(await readFile(grammarFile(GRAMMARS[language])));
      return new Parser().setLanguage(grammar);
    })();
    // A grammar that failed to load is tried again next time rather than failing for the process.
    parser.catch(() => parsers.delete(language));
    parsers.set(language, parser);
  }
  return parser;
}

function treeSitter(): Promise<typeof import('web-tree-sitter')> {
  runtime ??= (async () => {
    const module = await import('web-tree-sitter');
    // Its own .wasm is found through the package, not next to the importing file: the MCP server runs
    // from one bundled file (scripts/bundle-mcp.mjs), where web-tree-sitter's own lookup would miss it.
    const runtimeWasm = createRequire(import.meta.url).resolve('web-tree-sitter/tree-sitter.wasm');
    await module.Parser.init({ locateFile: () => runtimeWasm });
    return module;
  })();
  return runtime;
}

/**
 * A grammar's file: in dist/grammars/ when built (found from dist/checks/ and from the MCP bundle in dist/cli/
 * alike), else from its package (running from the sources: tests and benchmarks of src/).
 */
function grammarFile(grammar: Grammar): string {
  const built = fileURLToPath(new URL(`../grammars/${grammar.file}`, import.meta.url));
  if (existsSync(built)) return built;
  return createRequire(import.meta.url).resolve(`${grammar.from}/${grammar.file}`);
}
