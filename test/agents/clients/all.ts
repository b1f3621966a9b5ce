import { claudeCode } from './claude-code.js';
import type { AgentClient } from './client.js';
import { codex } from './codex.js';
import { geminiCli } from './gemini-cli.js';
import { opencode } from './opencode.js';
import { qwenCode } from './qwen-code.js';

/** Every agent the harness drives, most used first. */
export const CLIENTS: AgentClient[] = [claudeCode, codex, geminiCli, opencode, qwenCode];
