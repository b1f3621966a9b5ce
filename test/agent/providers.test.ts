import { describe, expect, it } from 'vitest';
import { listModels } from '../../src/agent/providers/list-models.js';
import { ModelSetupError, resolveModelTarget } from '../../src/agent/providers/model-target.js';
import { describeModelError } from '../../src/agent/providers/provider-errors.js';
import { parseUserConfig, type UserConfig, UserConfigError } from '../../src/agent/providers/user-config.js';
import { deadServerURL, startFakeModelServer } from './fake-model-server.js';

const NO_CONFIG: UserConfig = { path: '/home/me/.config/editgate/config.json', providers: {}, prices: {} };

describe('resolveModelTarget', () => {
  it('knows the local presets and their addresses, with no key needed', () => {
    const ollama = resolveModelTarget({ model: 'ollama/qwen2.5-coder:14b' }, NO_CONFIG, {});
    expect(ollama).toMatchObject({
      family: 'openai-compatible',
      baseURL: 'http://127.0.0.1:11434/v1',
      modelId: 'qwen2.5-coder:14b',
      local: true,
      apiKey: undefined,
    });
    expect(resolveModelTarget({ model: 'lmstudio/m' }, NO_CONFIG, {}).baseURL).toBe(
      'http://127.0.0.1:1234/v1',
    );
    expect(resolveModelTarget({ model: 'vllm/m' }, NO_CONFIG, {}).baseURL).toBe('http://127.0.0.1:8000/v1');
    expect(resolveModelTarget({ model: 'llamacpp/m' }, NO_CONFIG, {}).baseURL).toBe(
      'http://127.0.0.1:8080/v1',
    );
  });

  it('takes hosted keys and URLs from the variables the SDKs read; --base-url wins', () => {
    const env = { ANTHROPIC_API_KEY: 'sk-a', ANTHROPIC_BASE_URL: 'https://proxy.example/v1' };
    expect(resolveModelTarget({ model: 'anthropic/claude-x' }, NO_CONFIG, env)).toMatchObject({
      apiKey: 'sk-a',
      baseURL: 'https://proxy.example/v1',
      keyVariable: 'ANTHROPIC_API_KEY',
    });
    expect(
      resolveModelTarget({ model: 'anthropic/claude-x', baseURL: 'http://127.0.0.1:9/v1/' }, NO_CONFIG, env)
        .baseURL,
    ).toBe('http://127.0.0.1:9/v1');
  });

  it('a missing key names the variable to set', () => {
    expect(() => resolveModelTarget({ model: 'openai/gpt-x' }, NO_CONFIG, {})).toThrow(
      /OPENAI_API_KEY is not set: openai needs an API key\. Export it/,
    );
    expect(() =>
      resolveModelTarget({ model: 'anthropic/c', apiKeyEnv: 'WORK_KEY' }, NO_CONFIG, {
        ANTHROPIC_API_KEY: 'x',
      }),
    ).toThrow(/WORK_KEY is not set/);
    expect(
      resolveModelTarget({ model: 'anthropic/c', apiKeyEnv: 'WORK_KEY' }, NO_CONFIG, { WORK_KEY: 'k' })
        .apiKey,
    ).toBe('k');
  });

  it('says what to do without a model, with a bad spec, an unknown provider, or openai-compatible without a URL', () => {
    expect(() => resolveModelTarget({}, NO_CONFIG, {})).toThrow(
      /No model chosen\. Pass --model PROVIDER\/MODEL/,
    );
    // The hint names no model of its own (a named one retires and the hint goes stale), but the providers.
    const hint = (() => {
      try {
        resolveModelTarget({}, NO_CONFIG, {});
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(hint).not.toMatch(/claude-|gpt-|qwen/);
    expect(hint).toMatch(/Providers: .*anthropic/);
    expect(() => resolveModelTarget({ model: 'llama3' }, NO_CONFIG, {})).toThrow(/must be PROVIDER\/MODEL/);
    expect(() => resolveModelTarget({ model: 'acme/x' }, NO_CONFIG, {})).toThrow(/Unknown provider "acme"/);
    expect(() => resolveModelTarget({ model: 'openai-compatible/x' }, NO_CONFIG, {})).toThrow(/--base-url/);
    expect(() => resolveModelTarget({ model: 'ollama/x', baseURL: 'localhost:1' }, NO_CONFIG, {})).toThrow(
      ModelSetupError,
    );
  });

  it("uses the user config's model and providers of its own", () => {
    const config = parseUserConfig(
      {
        model: 'work/big',
        providers: {
          work: { type: 'openai-compatible', baseURL: 'https://llm.corp/v1', apiKeyEnv: 'CORP_KEY' },
        },
      },
      '/c.json',
    );
    expect(resolveModelTarget({}, config, { CORP_KEY: 'k' })).toMatchObject({
      label: 'work/big',
      baseURL: 'https://llm.corp/v1',
      apiKey: 'k',
    });
    expect(() => resolveModelTarget({}, config, {})).toThrow(/CORP_KEY is not set/);
  });
});

describe('the user config', () => {
  it('never holds a key: it says to name the variable instead', () => {
    expect(() => parseUserConfig({ providers: { anthropic: { apiKey: 'sk-live' } } }, '/c.json')).toThrow(
      /keys are never kept in a config file.*apiKeyEnv/,
    );
    expect(() => parseUserConfig({ token: 'x' }, '/c.json')).toThrow(UserConfigError);
  });

  it('refuses unknown settings and malformed values, naming where', () => {
    expect(() => parseUserConfig({ modle: 'x/y' }, '/c.json')).toThrow(/\/c\.json: modle: unknown setting/);
    expect(() => parseUserConfig({ model: 'nomodel' }, '/c.json')).toThrow(
      /model: must be "PROVIDER\/MODEL"/,
    );
    expect(() => parseUserConfig({ providers: { mine: {} } }, '/c.json')).toThrow(
      /give its "type" and "baseURL"/,
    );
    expect(() => parseUserConfig({ providers: { ollama: { apiKeyEnv: 'not a name' } } }, '/c.json')).toThrow(
      /name of an environment variable/,
    );
  });
});

describe('provider errors', () => {
  const target = resolveModelTarget({ model: 'ollama/m' }, NO_CONFIG, {});

  it('an unreachable server names the URL and how to start it', () => {
    const error = {
      name: 'AI_APICallError',
      message: 'Cannot connect to API: fetch failed',
      cause: { cause: { code: 'ECONNREFUSED' } },
    };
    expect(describeModelError(error, target)).toBe(
      'Cannot reach the model server at http://127.0.0.1:11434/v1 (connection refused). Is Ollama running? Start it with `ollama serve`.',
    );
  });

  it('a refused key names its variable; a context overflow says to /compact', () => {
    const hosted = resolveModelTarget({ model: 'anthropic/c' }, NO_CONFIG, { ANTHROPIC_API_KEY: 'bad' });
    expect(
      describeModelError(
        { statusCode: 401, responseBody: '{"error":{"message":"invalid x-api-key"}}' },
        hosted,
      ),
    ).toMatch(/refused the key in ANTHROPIC_API_KEY \(HTTP 401\): invalid x-api-key/);
    expect(
      describeModelError(
        {
          statusCode: 400,
          responseBody: '{"error":{"message":"This model\'s maximum context length is 8192 tokens"}}',
        },
        target,
      ),
    ).toMatch(/longer than ollama\/m can take.*\/compact/);
  });
});

describe('listModels', () => {
  it('lists what GET /models answers, sorted', async () => {
    const server = await startFakeModelServer([], { models: ['qwen', 'llama'] });
    const target = resolveModelTarget(
      { model: 'openai-compatible/x', baseURL: server.baseURL },
      NO_CONFIG,
      {},
    );
    expect(await listModels(target)).toEqual(['llama', 'qwen']);
  });

  it('a dead server is the same clear message', async () => {
    const dead = await deadServerURL();
    const target = resolveModelTarget({ model: 'openai-compatible/x', baseURL: dead }, NO_CONFIG, {});
    await expect(listModels(target)).rejects.toThrow(
      `Cannot reach the model server at ${dead} (connection refused).`,
    );
  });
});
