import type { PolicyRule } from './policy.js';

/**
 * A policy rule as a person reads it in a note or a log line: `edit_file on src/** → allow`. Its own file,
 * free of the policy engine's imports, so the MCP server's log can use it without loading the engine.
 */
export function describeRule(rule: Pick<PolicyRule, 'tool' | 'path' | 'action'>): string {
  return `${rule.tool ?? 'every tool'} on ${rule.path ?? 'every path'} → ${rule.action}`;
}
