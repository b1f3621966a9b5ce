import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import {
  type LanguageServerConfig,
  parseBudget,
  parseLanguageServers,
} from '../checks/language-server-config.js';
import { EditgateError } from '../core/errors.js';
import { markInvisible } from '../core/invisible.js';
import { shellLine, shellWord } from '../core/shell-word.js';
import {
  type AfterChangeHook,
  type BeforeChangeHook,
  combineAfterChange,
  combineBeforeChange,
  commandAfterCallHook,
  commandAfterChangeHook,
  commandBeforeCallHook,
  commandBeforeChangeHook,
  type Hooks,
} from '../gate/hooks.js';
import { isErrno } from '../workspace/fs-errors.js';
import { NotPlainFile, readPlainFile } from '../workspace/io.js';
import { MAX_STREAM_THRESHOLD } from '../workspace/stream/limits.js';
import { type ConfigTrust, configHash, isTrusted, untrustedPart } from './config-trust.js';
import type { CreateEditToolsOptions } from './index.js';

export const CONFIG_FILE = 'editgate.config.json';

const hookSchema = z.strictObject({
  command: z.string().min(1),
  timeoutMs: z.number().int().positive().optional(),
  failOpen: z.boolean().optional(),
});

const count = z.number().int().min(0);
const changeConditionSchema = z.strictObject({
  addedOver: count.optional(),
  removedOver: count.optional(),
  deleted: z.literal(true).optional(),
  moved: z.literal(true).optional(),
  emptied: z.literal(true).optional(),
  sizeOver: count.optional(),
  binary: z.literal(true).optional(),
  generated: z.union([z.literal(true), z.array(z.string().min(1))]).optional(),
  lockfile: z.literal(true).optional(),
  secrets: z.literal(true).optional(),
  syntaxErrors: z.literal(true).optional(),
  diagnostics: z.literal(true).optional(),
});

const configSchema = z.strictObject({
  $schema: z.string().optional(),
  policy: z
    .strictObject({
      rules: z.array(
        z.strictObject({
          tool: z.string().optional(),
          path: z.string().optional(),
          action: z.enum(['allow', 'ask', 'deny']),
          /** A change rule (gate/change-rules.ts): what the change does; it asks or denies, never allows. */
          change: changeConditionSchema.optional(),
          name: z.string().min(1).optional(),
        }),
      ),
    })
    .optional(),
  deny: z.array(z.string()).optional(),
  hooks: z
    .strictObject({
      beforeChange: z.array(hookSchema).optional(),
      afterChange: z.array(hookSchema).optional(),
    })
    .optional(),
  auditLog: z.string().optional(),
  stateDir: z.string().optional(),
  /** Where the CLI and the MCP server ask a person: 'terminal' (the default) or 'web' (the review page). */
  approve: z.enum(['terminal', 'web']).optional(),
  matching: z.enum(['exact', 'tolerant']).optional(),
  requireReadBeforeEdit: z.boolean().optional(),
  /** Let new text bring in placeholders for code left out (`// ... rest unchanged`); refused by default. */
  allowPlaceholders: z.boolean().optional(),
  readLimit: z.number().int().positive().optional(),
  /** Bytes: files this large or larger are read and edited by streaming (see Huge files in the README). */
  streamThreshold: z
    .number()
    .int()
    .min(1)
    .max(MAX_STREAM_THRESHOLD, `at most ${MAX_STREAM_THRESHOLD} bytes (256 MiB)`)
    .optional(),
  /** editgate proxy's word on particular tools of the servers it wraps; src/proxy/overrides.ts checks it. */
  proxy: z.unknown().optional(),
  /** Language servers whose diagnostics a change adds are shown; checks/language-server-config.ts checks it. */
  languageServers: z.unknown().optional(),
  /** How long a question waits for the language servers, in ms; checked with languageServers. */
  languageServerBudgetMs: z.unknown().optional(),
});

export type EditgateConfig = z.infer<typeof configSchema>;

/** The parts of createEditTools' options a config file decides. */
export type ConfiguredOptions = Pick<
  CreateEditToolsOptions,
  | 'policy'
  | 'deny'
  | 'hooks'
  | 'auditLog'
  | 'stateDir'
  | 'matching'
  | 'requireReadBeforeEdit'
  | 'allowPlaceholders'
  | 'readLimit'
  | 'streamThreshold'
  | 'languageServers'
  | 'languageServerBudgetMs'
>;

export interface LoadedConfig {
  /** The file it came from; undefined when there was none. */
  path?: string;
  /** The config in force: all of it when trusted, else only what tightens protection (config-trust.ts). */
  config: EditgateConfig;
  options: ConfiguredOptions;
  /** Whether the file is trusted, and what was left out if not; undefined when there was no file. */
  trust?: ConfigTrust;
}

export interface LoadConfigOptions {
  /** The user's state folder, where trust records are (default: defaultStateDir()). */
  stateDir?: string;
}

/**
 * Reads `editgate.config.json` from the root (or the file given) and turns it into tool options. A missing
 * default file is no config; a missing explicit file, bad JSON or an unknown key is an error that says which.
 * Every front end loads a config here, so here is where trust is decided: an untrusted file gives only
 * what tightens protection, and `trust.notice` says what was left out and how to trust it.
 */
export async function loadConfig(
  root: string,
  explicitPath?: string,
  loadOptions: LoadConfigOptions = {},
): Promise<LoadedConfig> {
  const path = explicitPath ? resolve(explicitPath) : join(resolve(root), CONFIG_FILE);
  let text: string;
  try {
    text = await readConfigFile(path);
  } catch (error) {
    if (error instanceof EditgateError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !explicitPath)
      return { config: {}, options: {} };
    throw new EditgateError(
      'INVALID_INPUT',
      `Cannot read the config file ${path}: ${(error as Error).message}`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new EditgateError(
      'INVALID_INPUT',
      `The config file ${path} is not valid JSON: ${(error as Error).message}`,
    );
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`);
    throw new EditgateError('INVALID_INPUT', `The config file ${path} is invalid: ${problems.join('; ')}`);
  }
  const written = parsed.data;
  try {
    if (written.languageServers !== undefined) parseLanguageServers(written.languageServers);
    parseBudget(written.languageServerBudgetMs);
  } catch (error) {
    if (!(error instanceof EditgateError)) throw error;
    throw new EditgateError('INVALID_INPUT', `The config file ${path} is invalid: ${error.message}`);
  }
  const restricted = untrustedPart(written);
  // Trust is for this root's use of this very file (config-trust.ts).
  const [realRoot, realFolder] = await Promise.all([
    realpath(root).catch(() => resolve(root)),
    // The file itself is no link (readConfigFile): its folder's real path names it.
    realpath(dirname(path)),
  ]);
  const trustedConfig = { root: realRoot, path: join(realFolder, basename(path)) };
  const trusted =
    restricted.ignored.length === 0 || (await isTrusted(trustedConfig, text, loadOptions.stateDir));
  const config = trusted ? written : restricted.config;
  const trust: ConfigTrust = {
    trusted,
    ignored: trusted ? [] : restricted.ignored,
    written,
    hash: configHash(text),
    config: trustedConfig,
  };
  if (!trusted) trust.notice = untrustedNotice(path, restricted.ignored, trustCommand(root, explicitPath));
  return { path, config, options: toOptions(config, resolve(root), dirname(path)), trust };
}

/**
 * The config file's text, opened without following a link at its name: a config file that is a symbolic
 * link is refused. A folder's config must be its own, or a link to a trusted project's config would bring
 * that project's config (and its hooks, run here) along (issue #26). The default file lies in the root
 * itself, so it cannot lead outside the root; a file given with --config is the person's choice of file.
 * Either way trust is for this root alone (config-trust.ts).
 */
async function readConfigFile(path: string): Promise<string> {
  try {
    // Read synchronously (workspace/io.ts): a config is small, and the hook server reads it on every call.
    return readPlainFile(path);
  } catch (error) {
    if (isErrno(error, 'ELOOP')) throw await linkedConfigError(path);
    if (error instanceof NotPlainFile)
      throw new EditgateError('INVALID_INPUT', markInvisible(`The config file ${path} is not a file.`), {
        path,
      });
    throw error;
  }
}

async function linkedConfigError(path: string): Promise<EditgateError> {
  const target = await realpath(path).then(
    (real) => ` (to ${real})`,
    () => '',
  );
  return new EditgateError(
    'INVALID_INPUT',
    markInvisible(
      `The config file ${path} is a symbolic link${target}. editgate reads a config only from a file of its own, since a link would let this folder borrow another project's config and the trust given to it. Replace the link with a copy of the file you mean (cp --remove-destination "$(readlink -f ${shellWord(path)})" ${shellWord(path)}: you are then asked to trust it as this folder's own), or give a real file with --config.`,
    ),
    { path },
  );
}

/** The command that trusts this config, as the person would type it. */
export function trustCommand(root: string, explicitPath?: string): string {
  const args = ['editgate', 'trust', resolve(root)];
  if (explicitPath) args.push('--config', resolve(explicitPath));
  return shellLine(args);
}

function untrustedNotice(path: string, ignored: string[], command: string): string {
  // The file's own words (paths, globs) reach a screen: nothing in them may act on the terminal.
  return markInvisible(
    `editgate: ${path} is not trusted (new, or changed since it was trusted), so it applies only where it tightens protection (deny globs, deny and ask rules). Ignored until you trust it: ${ignored.join('; ')}. To see what it does and trust it: ${command}`,
  );
}

function toOptions(config: EditgateConfig, root: string, configDir: string): ConfiguredOptions {
  const options: ConfiguredOptions = {};
  if (config.policy) options.policy = config.policy;
  if (config.deny) options.deny = config.deny;
  if (config.matching) options.matching = config.matching;
  if (config.requireReadBeforeEdit !== undefined)
    options.requireReadBeforeEdit = config.requireReadBeforeEdit;
  if (config.allowPlaceholders !== undefined) options.allowPlaceholders = config.allowPlaceholders;
  if (config.readLimit) options.readLimit = config.readLimit;
  if (config.streamThreshold) options.streamThreshold = config.streamThreshold;
  // Checked when the file was read (loadConfig).
  if (config.languageServers !== undefined)
    options.languageServers = config.languageServers as Record<string, LanguageServerConfig>;
  if (config.languageServerBudgetMs !== undefined)
    options.languageServerBudgetMs = config.languageServerBudgetMs as number;
  // Paths in the config are relative to the folder the config file is in.
  const fromConfig = (path: string) => (isAbsolute(path) ? path : join(configDir, path));
  if (config.auditLog) options.auditLog = fromConfig(config.auditLog);
  if (config.stateDir) options.stateDir = fromConfig(config.stateDir);
  if (config.hooks) options.hooks = commandHooks(config.hooks, root);
  return options;
}

function commandHooks(hooks: NonNullable<EditgateConfig['hooks']>, root: string): Hooks {
  const before: BeforeChangeHook[] = (hooks.beforeChange ?? []).map((spec) =>
    commandBeforeChangeHook(spec, root),
  );
  const after: AfterChangeHook[] = (hooks.afterChange ?? []).map((spec) =>
    commandAfterChangeHook(spec, root),
  );
  // The same commands see editgate proxy's calls that have no diff (cards), with a payload of kind "call".
  const beforeCall = (hooks.beforeChange ?? []).map((spec) => commandBeforeCallHook(spec, root));
  const afterCall = (hooks.afterChange ?? []).map((spec) => commandAfterCallHook(spec, root));
  return {
    beforeChange: combineBeforeChange(before),
    afterChange: combineAfterChange(after),
    beforeCall: combineBeforeChange(beforeCall),
    afterCall: combineAfterChange(afterCall),
  };
}
