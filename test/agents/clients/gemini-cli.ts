import { gemini } from '../fake-models/gemini.js';
import { baseEnv } from '../run-agent.js';
import type { AgentClient } from './client.js';
import { writeGeminiStyleSettings } from './gemini-settings.js';

/**
 * Gemini CLI (`gemini -p`), model over Gemini generateContent at GOOGLE_GEMINI_BASE_URL with an API key
 * (GEMINI_API_KEY). Settings in HOME/.gemini (see gemini-settings.ts), API-key auth chosen; an untrusted
 * project folder would stop the headless run with exit 55.
 */
export const geminiCli: AgentClient = {
  name: 'gemini-cli',
  label: 'Gemini CLI',
  protocol: gemini,
  hiddenTools: {
    write_file:
      "a headless run in the default approval mode leaves out tools named write_file, Gemini CLI's own and an MCP server's alike (with --approval-mode yolo it is offered)",
  },
  prepare({ workspace, model, command, prompt, mcp, ownEdits }) {
    writeGeminiStyleSettings(workspace, { folder: '.gemini', authType: 'gemini-api-key', mcp });
    return {
      command,
      args: [
        '-p',
        prompt,
        '--output-format',
        'json',
        '-m',
        'gemini-2.5-flash',
        ...(ownEdits ? ['--approval-mode', 'auto_edit'] : []),
      ],
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
