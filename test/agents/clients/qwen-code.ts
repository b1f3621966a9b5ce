import { chatCompletions } from '../fake-models/chat-completions.js';
import { EDITGATE_TOOL_NAMES } from '../fake-models/script.js';
import { baseEnv } from '../run-agent.js';
import type { AgentClient } from './client.js';
import { writeGeminiStyleSettings } from './gemini-settings.js';

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
  prepare({ workspace, model, command, prompt, mcp, ownEdits }) {
    writeGeminiStyleSettings(workspace, { folder: '.qwen', authType: 'openai', mcp });
    return {
      command,
      args: ['-p', prompt, '--output-format', 'json', ...(ownEdits ? ['--approval-mode', 'auto-edit'] : [])],
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
