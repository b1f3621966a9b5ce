import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chatCompletions } from '../fake-models/chat-completions.js';
import { baseEnv } from '../run-agent.js';
import type { AgentClient } from './client.js';

/**
 * OpenCode (`opencode run`), model over OpenAI Chat Completions through a custom provider
 * (`@ai-sdk/openai-compatible`, bundled in OpenCode, with baseURL the fake model) in
 * XDG_CONFIG_HOME/opencode/opencode.json, editgate under `mcp` as a local server. OpenCode allows MCP tools
 * without asking. Auto-update, the models.dev catalogue download, LSP downloads and default plugins are off
 * by their environment variables.
 */
/**
 * OpenCode with a model of this id. OpenCode offers a model whose id has "gpt-" in it (not gpt-4, not oss)
 * its apply_patch instead of edit and write; "fake-model" gets edit and write.
 */
export function opencodeWith(modelId: string): AgentClient {
  return {
    name: 'opencode',
    label: 'OpenCode',
    protocol: chatCompletions,
    prepare: (options) => prepareOpenCode(modelId, options),
  };
}

export const opencode = opencodeWith('fake-model');

function prepareOpenCode(
  modelId: string,
  { workspace, model, command, prompt, mcp }: Parameters<AgentClient['prepare']>[0],
): ReturnType<AgentClient['prepare']> {
  const configDir = join(workspace.homeEnv.XDG_CONFIG_HOME!, 'opencode');
  mkdirSync(configDir, { recursive: true });
  const { command: server, args, env } = workspace.editgate;
  const config = {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    model: `fake/${modelId}`,
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake model',
        options: { baseURL: `${model.origin}/v1`, apiKey: 'fake-key-for-tests' },
        models: { [modelId]: { name: 'Fake model', tool_call: true } },
      },
    },
    ...(mcp
      ? {
          mcp: { editgate: { type: 'local', command: [server, ...args], environment: env, enabled: true } },
        }
      : {}),
  };
  writeFileSync(join(configDir, 'opencode.json'), JSON.stringify(config, null, 2));
  // OpenCode installs its plugin library into each config folder and, when a plugin is there (editgate's
  // hook plugin), waits for that before its first request: offline, forever. Its installer skips a folder
  // whose node_modules exists and whose lock file lists every dependency, so it is seeded so.
  const dependencies = { '@opencode-ai/plugin': '*' };
  mkdirSync(join(configDir, 'node_modules'), { recursive: true });
  writeFileSync(join(configDir, 'package.json'), JSON.stringify({ dependencies }));
  writeFileSync(join(configDir, 'package-lock.json'), JSON.stringify({ packages: { '': { dependencies } } }));
  return {
    command,
    args: ['run', '--model', `fake/${modelId}`, '--format', 'json', prompt],
    cwd: workspace.root,
    env: {
      ...baseEnv(),
      ...workspace.homeEnv,
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      OPENCODE_DISABLE_SHARE: '1',
    },
  };
}
