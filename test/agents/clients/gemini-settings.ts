import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentWorkspace } from '../workspace.js';

/**
 * The settings Gemini CLI and its fork Qwen Code share, written into HOME/<folder>: settings.json (the auth
 * type chosen, so no login prompt; usage statistics, telemetry and update checks off; editgate under
 * mcpServers with `trust: true`, since a one-shot run cannot confirm each call) and trustedFolders.json
 * trusting the project, as trusting it interactively records it (an untrusted folder stops a headless run).
 */
export function writeGeminiStyleSettings(
  workspace: AgentWorkspace,
  { folder, authType, mcp }: { folder: string; authType: string; mcp: boolean },
): void {
  const settingsDir = join(workspace.home, folder);
  mkdirSync(settingsDir, { recursive: true });
  const { command, args, env } = workspace.editgate;
  const settings = {
    security: { auth: { selectedType: authType } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    ...(mcp ? { mcpServers: { editgate: { command, args, env, trust: true } } } : {}),
  };
  writeFileSync(join(settingsDir, 'settings.json'), JSON.stringify(settings, null, 2));
  writeFileSync(
    join(settingsDir, 'trustedFolders.json'),
    JSON.stringify({ [workspace.root]: 'TRUST_FOLDER' }),
  );
}
