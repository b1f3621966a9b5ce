/**
 * Policy rules on what a change does (issue #32), beside the rules on which tool and which path: lines
 * removed or added above a number, a file deleted, moved or made empty, a file grown past a size, a binary,
 * generated or lock file, a secret, a syntax error or a language server's diagnostic in the change. Such a rule only asks or denies: it
 * tightens, so an untrusted config keeps it (tools/config-trust.ts), and what it says stands over an allow
 * rule, a session grant and --yes (gate.screen). Each match is a Finding that names the rule.
 */
import { EditgateError } from '../core/errors.js';
import type { Finding } from '../core/findings.js';
import { compileGlob } from '../core/glob.js';
import { isBinary } from '../core/text.js';
import type { ProposedFile } from './proposal.js';

/** What a change must do for a change rule to match: every condition given must hold. */
export interface ChangeCondition {
  /** More than this many lines added to the file. */
  addedOver?: number;
  /** More than this many lines removed from the file. */
  removedOver?: number;
  /** The file is deleted (a move's old path counts: see `moved`). */
  deleted?: boolean;
  /** The file is moved to another path (apply_patch's "*** Move to:"); matched on the old path. */
  moved?: boolean;
  /** A file that had content is left empty. */
  emptied?: boolean;
  /** The file's new content is larger than this many bytes. */
  sizeOver?: number;
  /** The file is binary: its content (when the change holds bytes) or its name (.png, .zip, .so ...). */
  binary?: boolean;
  /**
   * The file is generated: a marker near its top ("@generated", "DO NOT EDIT", "Code generated",
   * "auto-generated"), before or after the change; a list of globs also names generated files by path.
   */
  generated?: boolean | string[];
  /** The file is a package manager's lock file (package-lock.json, yarn.lock, Cargo.lock, go.sum ...). */
  lockfile?: boolean;
  /** An added line holds what looks like a secret (secret-check.ts). */
  secrets?: boolean;
  /** The change adds a syntax error (the syntax check's findings). */
  syntaxErrors?: boolean;
  /** The change adds a configured language server's diagnostic (diagnostics-check.ts's findings). */
  diagnostics?: boolean;
}

/** A change rule's shape in a policy (PolicyRule with `change`). */
export interface ChangeRuleSpec {
  tool?: string;
  path?: string;
  change: ChangeCondition;
  action: 'ask' | 'deny';
  /** How the rule is named in a question, a refusal and the audit line; default: its condition in words. */
  name?: string;
}

/** Base names of the lock files of common package managers. */
export const LOCKFILE_NAMES: ReadonlySet<string> = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'bun.lock',
  'deno.lock',
  'Cargo.lock',
  'go.sum',
  'Gemfile.lock',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'pdm.lock',
  'composer.lock',
  'mix.lock',
  'pubspec.lock',
  'Podfile.lock',
  'Package.resolved',
  'packages.lock.json',
  'flake.lock',
  'gradle.lockfile',
]);

/** Name endings of files that are binary whatever a change says of their content. */
const BINARY_EXTENSIONS = new Set(
  'png jpg jpeg gif webp bmp ico tiff psd pdf zip gz tgz bz2 xz 7z rar jar war class exe dll so dylib a o obj lib bin wasm woff woff2 ttf otf eot mp3 mp4 mov avi mkv wav flac ogg sqlite db pyc'.split(
    ' ',
  ),
);

/** Markers a generator leaves near the top of what it writes. */
const GENERATED_MARKER = /@generated\b|\bDO NOT EDIT\b|\bCode generated\b|\bauto-?generated\b/i;
/** How far into a file a generated marker is looked for. */
const GENERATED_HEAD_CHARS = 1024;

const CONDITION_KEYS: readonly (keyof ChangeCondition)[] = [
  'addedOver',
  'removedOver',
  'deleted',
  'moved',
  'emptied',
  'sizeOver',
  'binary',
  'generated',
  'lockfile',
  'secrets',
  'syntaxErrors',
  'diagnostics',
];

interface CompiledChangeRule {
  spec: ChangeRuleSpec;
  source: string;
  matchesPath: (path: string) => boolean;
  generatedPath: (path: string) => boolean;
}

/** Change rules checked once, when the policy is built: a mistake is told at start, with what to write. */
export function compileChangeRule(spec: ChangeRuleSpec, index: number): CompiledChangeRule {
  const where = `policy rule ${index + 1}`;
  const condition = spec.change;
  if (!condition || typeof condition !== 'object' || Array.isArray(condition))
    throw invalid(where, '"change" must be an object of conditions, e.g. { "removedOver": 200 }.');
  const keys = Object.keys(condition);
  const unknown = keys.filter((key) => !(CONDITION_KEYS as string[]).includes(key));
  if (unknown.length > 0)
    throw invalid(
      where,
      `"change" has ${unknown.map((key) => JSON.stringify(key)).join(', ')}, which is not a condition; the conditions are ${CONDITION_KEYS.join(', ')}.`,
    );
  if (keys.length === 0)
    throw invalid(where, '"change" needs at least one condition, e.g. { "deleted": true }.');
  for (const key of ['addedOver', 'removedOver', 'sizeOver'] as const) {
    const value = condition[key];
    if (value !== undefined && !(Number.isInteger(value) && value >= 0))
      throw invalid(
        where,
        `"${key}" must be a whole number of ${key === 'sizeOver' ? 'bytes' : 'lines'} (0 or more).`,
      );
  }
  for (const key of [
    'deleted',
    'moved',
    'emptied',
    'binary',
    'lockfile',
    'secrets',
    'syntaxErrors',
    'diagnostics',
  ] as const) {
    if (condition[key] !== undefined && condition[key] !== true)
      throw invalid(where, `"${key}" can only be true (leave it out to not test it).`);
  }
  const generated = condition.generated;
  if (
    generated !== undefined &&
    generated !== true &&
    !(Array.isArray(generated) && generated.every((glob) => typeof glob === 'string' && glob !== ''))
  )
    throw invalid(
      where,
      '"generated" is true (a marker in the file) or a list of globs naming generated files.',
    );
  if (spec.action !== 'ask' && spec.action !== 'deny')
    throw invalid(
      where,
      `a rule with "change" asks or denies ("action": "ask" or "deny"); it cannot allow, since it would let through what other rules ask about.`,
    );
  if (spec.name !== undefined && (typeof spec.name !== 'string' || spec.name.trim() === ''))
    throw invalid(where, '"name" must be a non-empty string.');
  const globs = Array.isArray(generated) ? generated.map((glob) => compileGlob(glob)) : [];
  return {
    spec,
    source: `rule:${spec.name?.trim() ?? describeCondition(condition)}`,
    matchesPath: spec.path ? compileGlob(spec.path) : () => true,
    generatedPath: (path) => globs.some((matches) => matches(path)),
  };
}

function invalid(where: string, what: string): EditgateError {
  return new EditgateError('INVALID_INPUT', `${where}: ${what}`);
}

/** A condition as a person reads it: "removedOver 200, lockfile". */
export function describeCondition(condition: ChangeCondition): string {
  return CONDITION_KEYS.filter((key) => condition[key] !== undefined)
    .map((key) => {
      const value = condition[key];
      if (value === true) return key;
      return `${key} ${Array.isArray(value) ? value.join(' ') : String(value)}`;
    })
    .join(', ');
}

/**
 * What one change rule finds in one file of a proposal: a finding naming the rule and what the change
 * does, or none. `found`: what the checks found in the change, every file's (secrets, syntax errors).
 */
export function changeRuleFinding(
  rule: CompiledChangeRule,
  tool: string,
  file: ProposedFile,
  rulePath: string,
  found: readonly Finding[],
): Finding | undefined {
  const { spec } = rule;
  if (spec.tool !== undefined && spec.tool !== tool) return undefined;
  if (!rule.matchesPath(rulePath)) return undefined;
  const said: string[] = [];
  const condition = spec.change;
  const holds = (key: keyof ChangeCondition, what: string | undefined): boolean => {
    if (condition[key] === undefined) return true;
    if (what === undefined) return false;
    said.push(what);
    return true;
  };
  const { added, removed } = file.stats;
  const texts = file.texts;
  const newSize = sizeOf(file);
  const ofFile = found.filter((finding) => finding.path === file.path);
  const secrets = ofFile.filter((finding) => finding.kind === 'secret');
  const syntax = ofFile.filter((finding) => finding.kind === 'syntax');
  const diagnostics = ofFile.filter((finding) => finding.kind === 'diagnostic');
  const ok =
    holds(
      'addedOver',
      condition.addedOver !== undefined && added > condition.addedOver
        ? `adds ${added} lines (more than ${condition.addedOver})`
        : undefined,
    ) &&
    holds(
      'removedOver',
      condition.removedOver !== undefined && removed > condition.removedOver
        ? `removes ${removed} lines (more than ${condition.removedOver})`
        : undefined,
    ) &&
    holds('deleted', file.kind === 'delete' ? 'deletes the file' : undefined) &&
    holds(
      'moved',
      file.change.movedTo !== undefined ? `moves the file to ${file.change.movedTo}` : undefined,
    ) &&
    holds(
      'emptied',
      file.kind === 'modify' && newSize === 0 && (file.change.base.fingerprint?.size ?? 1) > 0
        ? 'leaves the file empty'
        : undefined,
    ) &&
    holds(
      'sizeOver',
      condition.sizeOver !== undefined && newSize !== undefined && newSize > condition.sizeOver
        ? `makes the file ${newSize} bytes (more than ${condition.sizeOver})`
        : undefined,
    ) &&
    holds('binary', isBinaryFile(file) ? 'changes a binary file' : undefined) &&
    holds(
      'generated',
      condition.generated !== undefined && (rule.generatedPath(rulePath) || hasGeneratedMarker(texts))
        ? 'changes a generated file'
        : undefined,
    ) &&
    holds('lockfile', LOCKFILE_NAMES.has(baseName(file.path)) ? 'changes a lock file' : undefined) &&
    holds(
      'secrets',
      secrets.length > 0
        ? `adds what looks like a secret (line ${secrets.map((finding) => finding.line ?? '?').join(', ')})`
        : undefined,
    ) &&
    holds(
      'syntaxErrors',
      syntax.length > 0
        ? `adds ${syntax.length === 1 ? 'a syntax error' : `${syntax.length} syntax errors`}`
        : undefined,
    ) &&
    holds(
      'diagnostics',
      diagnostics.length > 0
        ? `adds ${diagnostics.length === 1 ? "a language server's diagnostic" : `${diagnostics.length} language server diagnostics`}`
        : undefined,
    );
  if (!ok) return undefined;
  // A rule on what the checks found points at the first line they found it on.
  const line = [
    ...(condition.secrets ? secrets : []),
    ...(condition.syntaxErrors ? syntax : []),
    ...(condition.diagnostics ? diagnostics : []),
  ].find((finding) => finding.line !== undefined)?.line;
  return {
    kind: 'rule',
    path: file.path,
    ...(line === undefined ? {} : { line }),
    message: `${said.join('; ')}: ${spec.action === 'deny' ? 'refused' : 'asked'} by rule ${rule.source.slice('rule:'.length)}`,
    severity: spec.action,
    source: rule.source,
  };
}

/** The new content's size in bytes, when known (undefined for a deletion). */
function sizeOf(file: ProposedFile): number | undefined {
  const content = file.change.content;
  if (content === null) return file.change.base.fingerprint?.size;
  switch (content.type) {
    case 'text':
      return Buffer.byteLength(content.text, 'utf8');
    case 'bytes':
      return content.bytes.length;
    case 'prepared':
      return content.prepared.size;
    case 'delete':
      return undefined;
  }
}

function isBinaryFile(file: ProposedFile): boolean {
  const content = file.change.content;
  if (content?.type === 'bytes' && isBinary(content.bytes)) return true;
  const name = baseName(file.path);
  const dot = name.lastIndexOf('.');
  return dot > 0 && BINARY_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}

function hasGeneratedMarker(texts: ProposedFile['texts']): boolean {
  if (!texts) return false;
  return (
    GENERATED_MARKER.test(texts.before.slice(0, GENERATED_HEAD_CHARS)) ||
    GENERATED_MARKER.test(texts.after.slice(0, GENERATED_HEAD_CHARS))
  );
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
