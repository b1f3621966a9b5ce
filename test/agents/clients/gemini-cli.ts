import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gemini } from '../fake-models/gemini.js';
import { baseEnv } from '../run-agent.js';
import type { AgentClient } from './client.js';

/**
 * Gemini CLI (`gemini -p`), model over Gemini generateContent at GOOGLE_GEMINI_BASE_URL with an API key.
 * Settings in HOME/.gemini/settings.json: API-key auth chosen (no login prompt), usage statistics,
 * telemetry and update checks off, and editgate under mcpServers with `trust: true` (a one-shot run
 * cannot confirm each call). The project folder is trusted in HOME/.gemini/trustedFolders.json, as
 * trusting it interactively records it (an untrusted folder stops a headless run with exit 55).
 */
export const geminiCli: AgentClient = {
  name: 'gemini-cli',
  label: 'Gemini CLI',
  protocol: gemini,
  hiddenTools: {
    write_file:
      "a headless run in the default approval mode leaves out tools named write_file, Gemini CLI's own and an MCP server's alike (with --approval-mode yolo it is offered)",
  },
  prepare({ workspace, model, command, prompt, mcp }) {
    const settingsDir = join(workspace.home, '.gemini');
    mkdirSync(settingsDir, { recursive: true });
    const { command: server, args, env } = workspace.editgate;
    const settings = {
      security: { auth: { selectedType: 'gemini-api-key' } },
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
      args: ['-p', prompt, '--output-format', 'json', '-m', 'gemini-2.5-flash'],
      cwd: workspace.root,
      env: {
        ...baseEnv(),
        ...workspace.homeEnv,
        GEMINI_API_KEY: 'fake-key-for-tests',
        GOOGLE_GEMINI_BASE_URL: model.origin,
      },
    };
  },
};
