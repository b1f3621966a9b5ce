import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { PRESETS, type ProviderFamily } from './presets.js';

/**
 * The person's own settings for chat, in `$XDG_CONFIG_HOME/editgate/config.json` (default
 * `~/.config/editgate/config.json`): the default model, provider settings, and prices for /usage. A key is
 * never kept here, only the *name* of the variable that holds it (`apiKeyEnv`): a config file gets copied,
 * synced and shown; an environment variable stays where the person put it. The project's
 * editgate.config.json never selects a provider (a repository must not point a person's key elsewhere).
 *
 * Checked by hand rather than with zod: this is read before the input prompt shows, where every
 * millisecond of start-up counts.
 */
export interface ProviderSettings {
  /** For a provider of your own name: which protocol it speaks. */
  type?: ProviderFamily;
  baseURL?: string;
  /** The environment variable holding the key. */
  apiKeyEnv?: string;
}

export interface ModelPrice {
  /** US dollars per million input tokens. */
  input: number;
  /** US dollars per million output tokens. */
  output: number;
}

export interface UserConfig {
  path: string;
  model?: string;
  providers: Record<string, ProviderSettings>;
  prices: Record<string, ModelPrice>;
  /** `editgate review`'s settings (listening address, notifications), checked by web/review-settings.ts. */
  review?: unknown;
}

export class UserConfigError extends Error {}

export function userConfigPath(env: Record<string, string | undefined> = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'editgate', 'config.json');
}

/** Names that would hold a secret: refused wherever they appear, with the way to do it right. */
const SECRET_NAMES = /^(api[-_]?key|key|token|auth[-_]?token|secret|password)$/i;

export async function loadUserConfig(
  env: Record<string, string | undefined> = process.env,
): Promise<UserConfig> {
  const path = userConfigPath(env);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path, providers: {}, prices: {} };
    throw new UserConfigError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new UserConfigError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseUserConfig(raw, path);
}

export function parseUserConfig(raw: unknown, path: string): UserConfig {
  const fail = (where: string, what: string) => new UserConfigError(`${path}: ${where}: ${what}`);
  if (!isRecord(raw)) throw fail('(top level)', 'must be a JSON object');
  const config: UserConfig = { path, providers: {}, prices: {} };
  for (const [key, value] of Object.entries(raw)) {
    if (key === '$schema') continue;
    if (key === 'model') {
      if (typeof value !== 'string' || !value.includes('/'))
        throw fail('model', 'must be "PROVIDER/MODEL", e.g. "ollama/qwen2.5-coder:14b"');
      config.model = value;
    } else if (key === 'providers') {
      if (!isRecord(value)) throw fail('providers', 'must be an object of provider names');
      for (const [name, settings] of Object.entries(value)) {
        config.providers[name] = parseProvider(settings, name, fail);
      }
    } else if (key === 'prices') {
      if (!isRecord(value)) throw fail('prices', 'must map "PROVIDER/MODEL" to { "input": $, "output": $ }');
      for (const [model, price] of Object.entries(value)) {
        if (!isRecord(price) || typeof price.input !== 'number' || typeof price.output !== 'number')
          throw fail(`prices.${model}`, 'must be { "input": dollars per million tokens, "output": ... }');
        config.prices[model] = { input: price.input, output: price.output };
      }
    } else if (key === 'review') {
      config.review = value;
    } else if (SECRET_NAMES.test(key)) {
      throw fail(key, secretMessage());
    } else {
      throw fail(key, 'unknown setting (known: model, providers, prices, review)');
    }
  }
  return config;
}

function parseProvider(
  settings: unknown,
  name: string,
  fail: (where: string, what: string) => UserConfigError,
): ProviderSettings {
  const where = `providers.${name}`;
  if (!isRecord(settings)) throw fail(where, 'must be an object');
  const parsed: ProviderSettings = {};
  for (const [key, value] of Object.entries(settings)) {
    if (SECRET_NAMES.test(key)) throw fail(`${where}.${key}`, secretMessage());
    if (key === 'type') {
      if (value !== 'anthropic' && value !== 'openai' && value !== 'openai-compatible')
        throw fail(`${where}.type`, 'must be "anthropic", "openai" or "openai-compatible"');
      parsed.type = value;
    } else if (key === 'baseURL') {
      if (typeof value !== 'string' || !/^https?:\/\//.test(value))
        throw fail(`${where}.baseURL`, 'must be an http:// or https:// URL');
      parsed.baseURL = value;
    } else if (key === 'apiKeyEnv') {
      if (typeof value !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(value))
        throw fail(`${where}.apiKeyEnv`, 'must be the name of an environment variable, e.g. "MY_KEY"');
      parsed.apiKeyEnv = value;
    } else throw fail(`${where}.${key}`, 'unknown setting (known: type, baseURL, apiKeyEnv)');
  }
  if (!PRESETS[name] && !parsed.type)
    throw fail(where, `"${name}" is not a known provider: give its "type" and "baseURL"`);
  return parsed;
}

function secretMessage(): string {
  return 'keys are never kept in a config file. Put the key in an environment variable and name that variable here with "apiKeyEnv": "MY_KEY".';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
