import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chatCompletions } from '../fake-models/chat-completions.js';
import { EDITGATE_TOOL_NAMES } from '../fake-models/script.js';
import { baseEnv } from '../run-agent.js';
import type { AgentClient } from './client.js';

/**
 * Qwen Code (`qwen -p`, a fork of Gemini CLI), model over OpenAI Chat Completions: OPENAI_BASE_URL,
 * OPENAI_API_KEY and OPENAI_MODEL with the "openai" auth type chosen in HOME/.qwen/settings.json. Settings
 * as for Gemini CLI: usage statistics and telemetry off, no update check, editgate under mcpServers with
 * `trust: true`, the project trusted in HOME/.qwen/trustedFolders.json.
 *
 * Qwen Code defers MCP tools: the model sees their names in the system prompt, reviews their schemas with
 * `tool_search` and calls them through `tool_call` ({name, arguments}); the scripted model does the same. (A
 * direct call by name, which its prompt forbids, is carried out too.)
 */
export const qwenCode: AgentClient = {
  name: 'qwen-code',
  label: 'Qwen Code',
  protocol: chatCompletions,
  preamble: [
    {
      call: [
        {
          tool: 'tool_search',
          exact: true,
          input: {
            query: `select:${EDITGATE_TOOL_NAMES.filter((tool) => tool !== 'apply_change')
              .map((tool) => `mcp__editgate__${tool}`)
              .join(',')}`,
            max_results: 10,
          },
        },
      ],
    },
  ],
  wrapCall: (call) => ({ id: call.id, name: 'tool_call', input: { name: call.name, arguments: call.input } }),
  prepare({ workspace, model, command, prompt, mcp }) {
    const settingsDir = join(workspace.home, '.qwen');
    mkdirSync(settingsDir, { recursive: true });
    const { command: server, args, env } = workspace.editgate;
    const settings = {
      security: { auth: { selectedType: 'openai' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      ...(mcp ? { mcpServers: { editgate: { command: server, args, env, trust: true } } } : {}),
    };
    writeFileSync(join(settingsDir, 'settings.json'), JSON.stringify(settings, null, 2));
    writeFileSync(
      join(settingsDir, 'trustedFolders.json'),
      JSON.stringify({ [workspace.root]: 'TRUST_FOLDER' }),
    );
    return {
      command,
      args: ['-p', prompt, '--output-format', 'json'],
      cwd: workspace.root,
      env: {
        ...baseEnv(),
        ...workspace.homeEnv,
        OPENAI_API_KEY: 'fake-key-for-tests',
        OPENAI_BASE_URL: `${model.origin}/v1`,
        OPENAI_MODEL: 'fake-model',
      },
    };
  },
};
