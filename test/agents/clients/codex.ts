import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openAIResponses } from '../fake-models/openai-responses.js';
import { baseEnv } from '../run-agent.js';
import type { AgentClient } from './client.js';

/** A TOML string (JSON's string escapes are TOML's basic-string escapes for what we write). */
const toml = (value: string) => JSON.stringify(value);

/**
 * Codex (`codex exec`), model over OpenAI Responses. Everything lives in CODEX_HOME/config.toml: a model
 * provider `fake` whose base_url is the fake model (wire_api = "responses"; its key from FAKE_MODEL_API_KEY),
 * approval_policy = "never" (exec cannot ask), and editgate under [mcp_servers.editgate] with
 * default_tools_approval_mode = "approve" (else Codex asks its own question before every MCP call, and exec
 * declines it). Codex passes an MCP server only a few environment variables, so editgate's are listed in its
 * `env` table. Update checks and analytics are off. With `ownEdits`, the model is one whose catalogue entry
 * gives Codex its own apply_patch tool (workspace-write and approval "never" let it write unasked).
 */
export const codex: AgentClient = {
  name: 'codex',
  label: 'Codex',
  protocol: openAIResponses,
  prepare({ workspace, model, command, prompt, mcp, ownEdits, interactive }) {
    const codexHome = join(workspace.home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    const lines = [
      // The model's name picks Codex's tools from its bundled catalogue. An unknown one (fake-model) gets
      // fallback metadata: no apply_patch tool, and MCP tools offered directly in a namespace. gpt-5.5 has
      // the freeform apply_patch tool, and defers MCP tools behind tool_search.
      `model = "${ownEdits ? 'gpt-5.5' : 'fake-model'}"`,
      'model_provider = "fake"',
      // Interactive: Codex's own default, asking before what the sandbox does not allow.
      `approval_policy = "${interactive ? 'on-request' : 'never'}"`,
      'sandbox_mode = "workspace-write"',
      'check_for_update_on_startup = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[model_providers.fake]',
      'name = "fake"',
      `base_url = ${toml(`${model.origin}/v1`)}`,
      'wire_api = "responses"',
      'env_key = "FAKE_MODEL_API_KEY"',
      '',
    ];
    if (mcp) {
      const { command: server, args, env } = workspace.editgate;
      lines.push(
        '[mcp_servers.editgate]',
        `command = ${toml(server)}`,
        `args = [${args.map(toml).join(', ')}]`,
        `env = { ${Object.entries(env)
          .map(([key, value]) => `${key} = ${toml(value)}`)
          .join(', ')} }`,
        'default_tools_approval_mode = "approve"',
        // Else an optional server still starting when the first request goes out is left out of it (Codex
        // waits only mcp_optional_startup_grace_ms): seen on a loaded machine, 2 runs of 3 without editgate.
        'required = true',
        '',
      );
    }
    if (interactive) {
      // Typed keys arrive at once from a test: Codex would take them for a paste and Enter for a new line.
      lines.splice(lines.indexOf(''), 0, 'disable_paste_burst = true');
      // The project trusted as the first interactive start asks it once, so the session opens on the prompt.
      lines.push(`[projects.${toml(workspace.root)}]`, 'trust_level = "trusted"', '');
    }
    writeFileSync(join(codexHome, 'config.toml'), lines.join('\n'));
    return {
      command,
      args: interactive ? [] : ['exec', '--skip-git-repo-check', '--json', prompt],
      cwd: workspace.root,
      env: {
        ...baseEnv(),
        ...workspace.homeEnv,
        CODEX_HOME: codexHome,
        FAKE_MODEL_API_KEY: 'fake-key-for-tests',
      },
    };
  },
};
