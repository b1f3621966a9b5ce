import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { anthropicMessages } from '../fake-models/anthropic-messages.js';
import { EDITGATE_TOOL_NAMES } from '../fake-models/script.js';
import { baseEnv } from '../run-agent.js';
import type { AgentClient } from './client.js';

/**
 * Claude Code (`claude -p`), model over Anthropic Messages at ANTHROPIC_BASE_URL. editgate comes from
 * `--mcp-config` with `--strict-mcp-config` (no other server from any settings file), and its tools are
 * allowed with `--allowedTools mcp__editgate` (print mode cannot ask for permission; and as root Claude
 * Code refuses --dangerously-skip-permissions). Telemetry, error reports, auto-update and every other
 * non-essential request are switched off by their environment variables; CLAUDE_CONFIG_DIR keeps its
 * state in the workspace.
 *
 * Claude Code defers MCP tools: the model sees only their names (in a system reminder) and must load their
 * schemas with ToolSearch before it can call them, so a scripted session starts with that call.
 */
/**
 * The model name sent to the fake model. Claude Code 2.1.332 marks claude-sonnet-4-5 deprecated on
 * 2026-11-30 (the interactive session shows "Claude Sonnet 4.5 retired ... /model to switch") but still runs
 * it; with claude-sonnet-4-6 or claude-sonnet-5 it starts in its Auto permission mode (a check on Anthropic's
 * server decides each call not allowed by a rule; behind the fake model it cannot run, and each call is asked):
 * docs/clients/claude-code.md says what the person sees there. These tests allow mcp__editgate, as the docs do.
 */
const MODEL = 'claude-sonnet-4-5';

export const claudeCode: AgentClient = {
  name: 'claude-code',
  label: 'Claude Code',
  protocol: anthropicMessages,
  preamble: [
    {
      call: [
        {
          tool: 'ToolSearch',
          exact: true,
          input: {
            query: `select:${EDITGATE_TOOL_NAMES.filter((tool) => tool !== 'apply_change')
              .map((tool) => `mcp__editgate__${tool}`)
              .join(',')}`,
          },
        },
      ],
    },
  ],
  prepare({ workspace, model, command, prompt, mcp, ownEdits, interactive }) {
    const configDir = join(workspace.home, '.claude');
    mkdirSync(configDir, { recursive: true });
    const key = 'sk-ant-fake-key-for-tests';
    const args = interactive
      ? ['--model', MODEL]
      : ['-p', prompt, '--output-format', 'stream-json', '--verbose', '--model', MODEL];
    if (interactive) {
      // What the first interactive start asks once, answered as a person would have: onboarding done, the
      // project trusted, the API key from the environment approved (it is known by its last 20 characters).
      writeFileSync(
        join(configDir, '.claude.json'),
        JSON.stringify({
          hasCompletedOnboarding: true,
          theme: 'dark',
          customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
          projects: {
            [workspace.root]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true },
          },
        }),
      );
    }
    if (mcp) {
      const config = join(workspace.folder, 'claude-mcp.json');
      const { command: server, args: serverArgs, env } = workspace.editgate;
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: { editgate: { type: 'stdio', command: server, args: serverArgs, env } },
        }),
      );
      args.push('--mcp-config', config, '--strict-mcp-config', '--allowedTools', 'mcp__editgate');
    } else {
      args.push('--strict-mcp-config');
    }
    // Its own Edit and Write ask first; print mode cannot ask, so they would be refused.
    if (ownEdits) args.push('--permission-mode', 'acceptEdits');
    return {
      command,
      args,
      cwd: workspace.root,
      env: {
        ...baseEnv(),
        ...workspace.homeEnv,
        CLAUDE_CONFIG_DIR: configDir,
        ANTHROPIC_BASE_URL: model.origin,
        ANTHROPIC_API_KEY: key,
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
    };
  },
};
