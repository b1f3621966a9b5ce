import { EditgateError } from '../core/errors.js';
import { compileGlob } from '../core/glob.js';

/**
 * The language servers a person configured (issue #32): `"languageServers": { NAME: { command, files, ... } }`
 * in the config file, or the same object given to createEditTools. Checked here once, when the config is
 * read, so a mistake is told at start with what to write instead, never met at the first change. editgate
 * installs no server: `command` names one the person has.
 */
export interface LanguageServerConfig {
  /** The program and its arguments, run without a shell in the workspace root, e.g. ["pyright-langserver", "--stdio"]. */
  command: string[];
  /** Globs of the files it checks, relative to the workspace root, e.g. ["**\/*.py"]. */
  files: string[];
  /** The document's language as the server knows it; default: from the file's extension ("typescript", "python" ...). */
  languageId?: string;
  /** Sent in `initialize` as `initializationOptions`. */
  initializationOptions?: Record<string, unknown>;
  /** What `workspace/configuration` answers, by section ("python.analysis" reads settings.python.analysis). */
  settings?: Record<string, unknown>;
  /** Warnings a change adds are shown too; default false (errors only). */
  warnings?: boolean;
}

/** A configured server with its name: the name shows in findings ("lsp:typescript"). */
export interface LanguageServerSpec extends LanguageServerConfig {
  name: string;
}

/** How long the question waits for the servers' diagnostics by default: past it, it is shown without them. */
export const DEFAULT_BUDGET_MS = 1500;
/** The longest budget a config may set (ten minutes): a question is never held longer for a check. */
export const MOST_BUDGET_MS = 600_000;

const KEYS = ['command', 'files', 'languageId', 'initializationOptions', 'settings', 'warnings'] as const;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/;
const EXAMPLE =
  '{ "typescript": { "command": ["typescript-language-server", "--stdio"], "files": ["**/*.ts"] } }';

/**
 * The servers in `value` (the config's `languageServers`), checked: each a known key with a value of the
 * right shape, every glob readable. Throws INVALID_INPUT naming the server and the key, and what to write.
 */
export function parseLanguageServers(value: unknown, where = 'languageServers'): LanguageServerSpec[] {
  if (!isRecord(value)) throw invalid(`${where} must be an object of named servers, e.g. ${EXAMPLE}.`);
  return Object.entries(value).map(([name, config]) => parseOne(name, config, `${where}.${name}`));
}

/** The budget in ms, checked: a whole number from 1 to MOST_BUDGET_MS. */
export function parseBudget(value: unknown, where = 'languageServerBudgetMs'): number {
  if (value === undefined) return DEFAULT_BUDGET_MS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MOST_BUDGET_MS)
    throw invalid(
      `${where} must be a whole number of milliseconds from 1 to ${MOST_BUDGET_MS} (the default is ${DEFAULT_BUDGET_MS}).`,
    );
  return value;
}

function parseOne(name: string, config: unknown, where: string): LanguageServerSpec {
  if (!NAME.test(name))
    throw invalid(
      `${JSON.stringify(name)} is not a usable server name: use letters, digits, ".", "_" or "-" (up to 40), e.g. "typescript".`,
    );
  if (!isRecord(config))
    throw invalid(`${where} must be an object with "command" and "files", e.g. ${EXAMPLE}.`);
  const unknown = Object.keys(config).filter((key) => !(KEYS as readonly string[]).includes(key));
  if (unknown.length > 0)
    throw invalid(
      `${where} has ${unknown.map((key) => JSON.stringify(key)).join(', ')}, which is not a setting; the settings are ${KEYS.join(', ')}.`,
    );
  const { command, files, languageId, initializationOptions, settings, warnings } = config;
  if (typeof command === 'string')
    throw invalid(
      `${where}.command must be a list: the program, then each argument, e.g. ["typescript-language-server", "--stdio"]. No shell runs it, so a string is not split at spaces.`,
    );
  if (!Array.isArray(command) || command.length === 0 || !command.every(isWord))
    throw invalid(
      `${where}.command must be a non-empty list of non-empty strings: the program, then each argument, e.g. ["pyright-langserver", "--stdio"].`,
    );
  if (!Array.isArray(files) || files.length === 0 || !files.every(isWord))
    throw invalid(
      `${where}.files must list the globs of the files this server checks (relative to the workspace root), e.g. ["**/*.ts", "**/*.tsx"].`,
    );
  for (const glob of files) {
    try {
      compileGlob(glob);
    } catch (error) {
      throw invalid(`${where}.files: ${JSON.stringify(glob)} is not a glob editgate reads: ${String(error)}`);
    }
  }
  if (languageId !== undefined && !isWord(languageId))
    throw invalid(`${where}.languageId must be a non-empty string, e.g. "typescriptreact".`);
  if (initializationOptions !== undefined && !isRecord(initializationOptions))
    throw invalid(`${where}.initializationOptions must be an object (it is sent to the server as it is).`);
  if (settings !== undefined && !isRecord(settings))
    throw invalid(
      `${where}.settings must be an object of settings by section, e.g. { "python": { "analysis": { "typeCheckingMode": "strict" } } }.`,
    );
  if (warnings !== undefined && typeof warnings !== 'boolean')
    throw invalid(`${where}.warnings must be true or false (true: warnings a change adds are shown too).`);
  return {
    name,
    command: command as string[],
    files: files as string[],
    ...(languageId === undefined ? {} : { languageId: languageId as string }),
    ...(initializationOptions === undefined ? {} : { initializationOptions }),
    ...(settings === undefined ? {} : { settings }),
    ...(warnings === undefined ? {} : { warnings }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isWord(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

function invalid(what: string): EditgateError {
  return new EditgateError('INVALID_INPUT', what);
}

/** Language ids of the Language Server Protocol by file extension, for a server whose config names none. */
const LANGUAGE_IDS: Record<string, string> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'typescriptreact',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascriptreact',
  py: 'python',
  pyi: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  rb: 'ruby',
  php: 'php',
  json: 'json',
  yaml: 'yaml',
  yml: 'yaml',
  toml: 'toml',
  css: 'css',
  html: 'html',
  sh: 'shellscript',
  bash: 'shellscript',
  lua: 'lua',
  swift: 'swift',
  kt: 'kotlin',
  zig: 'zig',
};

/** The language id a server is told for `path`: the config's, else the extension's, else "plaintext". */
export function languageIdFor(spec: Pick<LanguageServerConfig, 'languageId'>, path: string): string {
  if (spec.languageId) return spec.languageId;
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return (dot > 0 && LANGUAGE_IDS[name.slice(dot + 1).toLowerCase()]) || 'plaintext';
}
