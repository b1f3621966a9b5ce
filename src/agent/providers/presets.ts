/**
 * The model providers `editgate chat --model PROVIDER/MODEL` knows. Three protocol families, each spoken by
 * one AI SDK provider: Anthropic Messages, OpenAI (hosted), and OpenAI-compatible Chat Completions, which is
 * what local servers speak. Local presets are Chat Completions servers at their usual address.
 */
export type ProviderFamily = 'anthropic' | 'openai' | 'openai-compatible';

export interface ProviderPreset {
  name: string;
  family: ProviderFamily;
  /** The default base URL (Chat Completions servers: the URL that ends in /v1). */
  baseURL?: string;
  /** The variable the SDK reads the key from; a local server needs none unless the config names one. */
  keyVariable?: string;
  /** The variable the SDK reads the base URL from. */
  baseURLVariable?: string;
  /** A server on this machine: no key, no retries on a refused connection, context truncation checked. */
  local: boolean;
  /** What to tell a person whose server does not answer. */
  startHint?: string;
}

export const PRESETS: Record<string, ProviderPreset> = {
  anthropic: {
    name: 'anthropic',
    family: 'anthropic',
    baseURL: 'https://api.anthropic.com/v1',
    keyVariable: 'ANTHROPIC_API_KEY',
    baseURLVariable: 'ANTHROPIC_BASE_URL',
    local: false,
  },
  openai: {
    name: 'openai',
    family: 'openai',
    baseURL: 'https://api.openai.com/v1',
    keyVariable: 'OPENAI_API_KEY',
    baseURLVariable: 'OPENAI_BASE_URL',
    local: false,
  },
  ollama: {
    name: 'ollama',
    family: 'openai-compatible',
    baseURL: 'http://127.0.0.1:11434/v1',
    local: true,
    startHint: 'Is Ollama running? Start it with `ollama serve`.',
  },
  lmstudio: {
    name: 'lmstudio',
    family: 'openai-compatible',
    baseURL: 'http://127.0.0.1:1234/v1',
    local: true,
    startHint: "Is LM Studio's server running? Start it in the Developer tab or with `lms server start`.",
  },
  vllm: {
    name: 'vllm',
    family: 'openai-compatible',
    baseURL: 'http://127.0.0.1:8000/v1',
    local: true,
    startHint: 'Is vLLM running? Start it with `vllm serve MODEL`.',
  },
  llamacpp: {
    name: 'llamacpp',
    family: 'openai-compatible',
    baseURL: 'http://127.0.0.1:8080/v1',
    local: true,
    startHint: 'Is llama.cpp running? Start it with `llama-server -m MODEL.gguf --jinja`.',
  },
  'openai-compatible': {
    name: 'openai-compatible',
    family: 'openai-compatible',
    local: true,
  },
};

export const PRESET_NAMES = Object.keys(PRESETS);
