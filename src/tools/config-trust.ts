import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EditgateError } from '../core/errors.js';
import { markInvisible } from '../core/invisible.js';
import { describeCondition } from '../gate/change-rules.js';
import { readPlainFile } from '../workspace/io.js';
import { isSealed, seal, stateKey } from '../workspace/state-key.js';
import type { EditgateConfig, LoadedConfig } from './config.js';
import { defaultStateDir } from './state-dir.js';

/**
 * Trust in a config file read from disk. A cloned repository's `editgate.config.json` is written by
 * whoever made the repository, so until the person trusts it (`editgate trust`, or yes to the one-time
 * question) only what tightens protection applies: deny globs and `deny`/`ask` rules. What runs commands
 * (hooks, language servers), writes elsewhere (`auditLog`, `stateDir`) or loosens protection (`allow` rules,
 * `requireReadBeforeEdit: false`, `allowPlaceholders: true`, a proxy tool marked read-only or described as a
 * write) waits for trust. A shorter deny list
 * loosens nothing: the guard refuses `.git` and the config file whatever the list (ALWAYS_DENY).
 *
 * The record lives in the user's state folder, never in the root (a model or the repository could write
 * it there; no root may hold the state folder: state-dir.ts), one file per root and config path, and holds
 * the sha256 of the content trusted: a config changed since (by a `git pull`, by anyone) is untrusted
 * again, and trust in one folder's config never carries over to another folder's (issue #26: a clone whose
 * config was a link to a trusted project's ran that project's hooks on the clone's scripts). Each record is
 * sealed with the state folder's key (workspace/state-key.ts): a record written by anything else is not
 * believed. Options given in code (the library) need no trust: whoever wrote the code chose them.
 */

export interface ConfigTrust {
  /** The whole config applies. True when nothing in it needs trust. */
  trusted: boolean;
  /** What was left out because the config is not trusted, in a person's words (empty when trusted). */
  ignored: string[];
  /** Said once to the person when something was left out: why, and the command that trusts it. */
  notice?: string;
  /** The config as written (all of it), for `editgate trust` to show. */
  written: EditgateConfig;
  /** sha256 of the file's bytes, as the trust record keeps it. */
  hash: string;
  /** The root and the file (canonical) a trust record is for. */
  config: TrustedConfig;
}

export function configHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The part of a config anyone may set: everything that only tightens protection, and what was left out. */
export function untrustedPart(config: EditgateConfig): { config: EditgateConfig; ignored: string[] } {
  const kept: EditgateConfig = { ...config };
  const ignored: string[] = [];
  const hookCount = (config.hooks?.beforeChange?.length ?? 0) + (config.hooks?.afterChange?.length ?? 0);
  if (config.hooks) {
    delete kept.hooks;
    if (hookCount > 0) ignored.push(`${hookCount} hook command${hookCount === 1 ? '' : 's'} (never run)`);
  }
  if (config.policy) {
    const rules = config.policy.rules.filter((rule) => rule.action !== 'allow');
    const dropped = config.policy.rules.length - rules.length;
    kept.policy = { rules };
    if (dropped > 0) ignored.push(`${dropped} allow rule${dropped === 1 ? '' : 's'}`);
  }
  // A deny list cannot loosen anything: the guard refuses ALWAYS_DENY (.git, the config) whatever the list.
  if (config.auditLog !== undefined) {
    delete kept.auditLog;
    ignored.push(`auditLog ${JSON.stringify(config.auditLog)}`);
  }
  if (config.stateDir !== undefined) {
    delete kept.stateDir;
    ignored.push(`stateDir ${JSON.stringify(config.stateDir)}`);
  }
  if (config.requireReadBeforeEdit === false) {
    delete kept.requireReadBeforeEdit;
    ignored.push('requireReadBeforeEdit: false');
  }
  if (config.allowPlaceholders === true) {
    delete kept.allowPlaceholders;
    ignored.push('allowPlaceholders: true');
  }
  // A language server is a program the config starts, like a hook command.
  const servers = languageServersOf(config);
  if (servers.length > 0) {
    delete kept.languageServers;
    ignored.push(`${servers.length} language server${servers.length === 1 ? '' : 's'} (never started)`);
  }
  const proxyTools = proxyToolsOf(config.proxy);
  if (proxyTools) {
    // Only "ask" tightens: "readOnly" relays a tool unasked, and "write" chooses which argument is the path
    // (the file whose diff is shown), which a hostile config could point at a decoy.
    const tools = proxyTools.filter((entry) => !loosens(entry));
    const dropped = proxyTools.length - tools.length;
    if (dropped > 0) {
      kept.proxy = { ...(config.proxy as object), tools };
      ignored.push(`${dropped} proxy tool entr${dropped === 1 ? 'y' : 'ies'} (read-only or write)`);
    }
  }
  return { config: kept, ignored };
}

/** The language servers a config names: [name, command, files] each (checked when the file was read). */
function languageServersOf(config: EditgateConfig): { name: string; command: unknown; files: unknown }[] {
  const servers = config.languageServers;
  if (typeof servers !== 'object' || servers === null) return [];
  return Object.entries(servers as Record<string, { command?: unknown; files?: unknown }>).map(
    ([name, server]) => ({ name, command: server?.command, files: server?.files }),
  );
}

function proxyToolsOf(section: unknown): unknown[] | undefined {
  if (typeof section !== 'object' || section === null) return undefined;
  const tools = (section as { tools?: unknown }).tools;
  return Array.isArray(tools) ? tools : undefined;
}

/** A proxy tool entry that loosens: it relays a tool unasked, or says which argument a write's path is. */
function loosens(entry: unknown): boolean {
  if (typeof entry !== 'object' || entry === null) return false; // invalid: the parser says why
  const { readOnly, write } = entry as { readOnly?: unknown; write?: unknown };
  return readOnly !== undefined || write !== undefined;
}

/** What a config would do, one line each, for a person deciding whether to trust it. */
export function describeConfig(config: EditgateConfig): string[] {
  const lines: string[] = [];
  for (const hook of config.hooks?.beforeChange ?? [])
    lines.push(`runs before every change: ${JSON.stringify(hook.command)}`);
  for (const hook of config.hooks?.afterChange ?? [])
    lines.push(`runs after every change: ${JSON.stringify(hook.command)}`);
  for (const server of languageServersOf(config))
    lines.push(
      `starts the language server ${JSON.stringify(server.command)} (${server.name}) when ${Array.isArray(server.files) ? server.files.map((glob) => JSON.stringify(glob)).join(', ') : 'its files'} change, and keeps it running`,
    );
  for (const rule of config.policy?.rules ?? [])
    lines.push(
      `${rule.action} ${rule.tool ?? 'every tool'} on ${rule.path === undefined ? 'every path' : JSON.stringify(rule.path)}${rule.change ? ` when the change has ${describeCondition(rule.change)}` : ''}`,
    );
  if (config.deny)
    lines.push(`denies ${config.deny.map((glob) => JSON.stringify(glob)).join(', ') || 'nothing'}`);
  if (config.auditLog !== undefined) lines.push(`writes an audit log to ${JSON.stringify(config.auditLog)}`);
  if (config.stateDir !== undefined) lines.push(`keeps undo history in ${JSON.stringify(config.stateDir)}`);
  if (config.requireReadBeforeEdit === false) lines.push('lets files be edited without being read first');
  if (config.allowPlaceholders === true)
    lines.push('lets changes bring in placeholder lines such as "// ... rest of the code unchanged"');
  for (const entry of proxyToolsOf(config.proxy) ?? []) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { tool, readOnly, write } = entry as { tool?: unknown; readOnly?: unknown; write?: unknown };
    if (readOnly !== undefined) lines.push(`relays the proxied tool ${JSON.stringify(tool)} without asking`);
    if (write !== undefined)
      lines.push(
        `shows the proxied tool ${JSON.stringify(tool)}'s writes as diffs of the file its argument ${JSON.stringify((write as { path?: unknown }).path)} names`,
      );
  }
  if (lines.length === 0) lines.push('nothing that needs trust (only settings that tighten protection)');
  return lines;
}

/** Where trust records live: the user's state folder, outside every root. */
export function trustFolder(stateDir: string = defaultStateDir()): string {
  return join(stateDir, 'trust');
}

/** Which config a trust record is for: the root it governs and the file, both canonical. */
export interface TrustedConfig {
  root: string;
  path: string;
}

interface TrustRecord extends TrustedConfig {
  hash: string;
  trustedAt: string;
  /** HMAC-SHA256 of root, path and hash under the state folder's key (workspace/state-key.ts). */
  mac: string;
}

const PURPOSE = 'config trust record';

/** What a record's MAC covers: the root, the file and its content, never the time. */
function sealed(config: TrustedConfig, hash: string): string {
  return JSON.stringify([config.root, config.path, hash]);
}

function recordFile(config: TrustedConfig, stateDir?: string): string {
  const name = createHash('sha256').update(`${config.root}\0${config.path}`).digest('hex').slice(0, 32);
  return join(trustFolder(stateDir), `${name}.json`);
}

/**
 * Whether the person trusted this config file for this root, with exactly this content: a record sealed
 * with the state folder's key (a record written by anything else is not believed) for the same root, file
 * and sha256. A clone whose config is a copy of, or a link to, a trusted one is another root: untrusted.
 */
export async function isTrusted(config: TrustedConfig, text: string, stateDir?: string): Promise<boolean> {
  let record: Partial<TrustRecord>;
  try {
    // A record is a small regular file; anything else there (a link, a FIFO) is not followed or waited on.
    record = JSON.parse(readPlainFile(recordFile(config, stateDir), 64 * 1024)) as Partial<TrustRecord>;
  } catch {
    return false; // no record, or one that is not ours to believe
  }
  const hash = configHash(text);
  if (record?.root !== config.root || record.path !== config.path || record.hash !== hash) return false;
  const key = stateKey(stateDir ?? defaultStateDir(), { create: false });
  return key !== null && isSealed(key, PURPOSE, sealed(config, hash), record.mac);
}

/** The trust record for this config file, root and content: where it goes, and what it says (sealed). */
export function trustRecord(
  config: TrustedConfig,
  text: string,
  stateDir?: string,
): { file: string; content: string } {
  const hash = configHash(text);
  const key = stateKey(stateDir ?? defaultStateDir(), { create: true })!;
  const record: TrustRecord = {
    root: config.root,
    path: config.path,
    hash,
    trustedAt: new Date().toISOString(),
    mac: seal(key, PURPOSE, sealed(config, hash)),
  };
  return { file: recordFile(config, stateDir), content: `${JSON.stringify(record, null, 2)}\n` };
}

/** Records that the person trusts this config file for this root with this content. Returns the record's path. */
export async function recordTrust(config: TrustedConfig, text: string, stateDir?: string): Promise<string> {
  const { file, content } = trustRecord(config, text, stateDir);
  await mkdir(trustFolder(stateDir), { recursive: true, mode: 0o700 });
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, content, { mode: 0o600, flag: 'wx' });
  await rename(temp, file);
  return file;
}

/** Forgets the person's trust in this config file for this root: the record's path, or null when there was none. */
export async function revokeTrust(config: TrustedConfig, stateDir?: string): Promise<string | null> {
  const file = recordFile(config, stateDir);
  try {
    await unlink(file);
    return file;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * What a config would do, in lines a person reads before saying yes to trusting it (the CLI, the chat and
 * an MCP elicitation show it): the file's own words marked so none can act on a screen.
 */
export function trustSummary(loaded: LoadedConfig): string {
  const lines = describeConfig(loaded.trust!.written).map((line) => `  ${line}`);
  return markInvisible(`${loaded.path}, once trusted:\n${lines.join('\n')}`);
}

/**
 * Records trust in the config as it was shown: if the file changed since it was loaded, nothing is
 * recorded (STALE), so no one can swap the file while the person reads it.
 */
export async function trustLoaded(loaded: LoadedConfig, stateDir?: string): Promise<string> {
  const trust = loaded.trust!;
  const text = await readFile(trust.config.path, 'utf8');
  if (configHash(text) !== trust.hash) {
    throw new EditgateError(
      'STALE',
      `${loaded.path} changed while it was shown; nothing was trusted. Run the command again and read it anew.`,
    );
  }
  return recordTrust(trust.config, text, stateDir);
}
