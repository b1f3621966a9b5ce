import { PRESET_NAMES, PRESETS, type ProviderFamily } from './presets.js';
import type { UserConfig } from './user-config.js';

/** Everything needed to talk to one model: who, where, and the key (kept in memory only, never saved). */
export interface ModelTarget {
  /** The provider name as typed: a preset (`ollama`) or one of the config's own (`work`). */
  provider: string;
  family: ProviderFamily;
  modelId: string;
  /** `provider/model`, as shown and saved. */
  label: string;
  /** Undefined: the SDK's default (hosted APIs). */
  baseURL: string | undefined;
  apiKey: string | undefined;
  /** The variable the key came from (or should have), for messages. */
  keyVariable: string | undefined;
  local: boolean;
  startHint: string | undefined;
}

/** A model that cannot be used as asked: the message says what to set, never shows a key. */
export class ModelSetupError extends Error {}

export interface ModelChoice {
  /** `PROVIDER/MODEL` from --model; else the config's `model`. */
  model?: string;
  /** --base-url */
  baseURL?: string;
  /** --api-key-env */
  apiKeyEnv?: string;
}

export function resolveModelTarget(
  choice: ModelChoice,
  config: UserConfig,
  env: Record<string, string | undefined> = process.env,
): ModelTarget {
  const spec = choice.model ?? config.model;
  if (!spec) {
    throw new ModelSetupError(
      // No model name of our own here: a named model retires, and the hint would send people to it.
      `No model chosen. Pass --model PROVIDER/MODEL, MODEL as the provider names it (its models page; \`ollama list\` for Ollama's), or set "model" in ${config.path}. Providers: ${PRESET_NAMES.join(', ')}. In the chat, /model lists the provider's models.`,
    );
  }
  const slash = spec.indexOf('/');
  if (slash <= 0 || slash === spec.length - 1) {
    throw new ModelSetupError(
      `--model must be PROVIDER/MODEL (got "${spec}"). Providers: ${PRESET_NAMES.join(', ')}, or one named in ${config.path}.`,
    );
  }
  const provider = spec.slice(0, slash);
  const modelId = spec.slice(slash + 1);
  const preset = PRESETS[provider];
  const settings = config.providers[provider];
  if (!preset && !settings) {
    throw new ModelSetupError(
      `Unknown provider "${provider}". Known: ${PRESET_NAMES.join(', ')}; or describe it under "providers" in ${config.path}.`,
    );
  }
  const family = settings?.type ?? preset!.family;
  const local = preset ? preset.local : family === 'openai-compatible';
  const fromEnv = preset?.baseURLVariable ? env[preset.baseURLVariable] : undefined;
  const baseURL = choice.baseURL ?? settings?.baseURL ?? (fromEnv || undefined) ?? preset?.baseURL;
  if (!baseURL && family === 'openai-compatible') {
    throw new ModelSetupError(
      `${provider} needs the server's URL: pass --base-url http://HOST:PORT/v1 (the URL that ends in /v1).`,
    );
  }
  if (choice.baseURL !== undefined && !/^https?:\/\/[^/]/.test(choice.baseURL)) {
    throw new ModelSetupError(`--base-url must be an http:// or https:// URL (got "${choice.baseURL}").`);
  }
  const keyVariable = choice.apiKeyEnv ?? settings?.apiKeyEnv ?? preset?.keyVariable;
  const apiKey = keyVariable ? env[keyVariable] || undefined : undefined;
  // A hosted API always needs its key; a local server only when the person said it has one.
  const keyRequired = !local || choice.apiKeyEnv !== undefined || settings?.apiKeyEnv !== undefined;
  if (keyRequired && keyVariable && !apiKey) {
    throw new ModelSetupError(
      `${keyVariable} is not set: ${provider} needs an API key. Export it (export ${keyVariable}=...) and run again, or name another variable with --api-key-env NAME.`,
    );
  }
  return {
    provider,
    family,
    modelId,
    label: `${provider}/${modelId}`,
    baseURL: baseURL?.replace(/\/+$/, ''),
    apiKey,
    keyVariable,
    local,
    startHint: preset?.startHint,
  };
}

/** The same provider settings with another model (for /model NAME). */
export function withModel(target: ModelTarget, modelId: string): ModelTarget {
  return { ...target, modelId, label: `${target.provider}/${modelId}` };
}
