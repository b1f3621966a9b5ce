import { EditgateError } from '../core/errors.js';
import type { Finding } from '../core/findings.js';
import { compileGlob } from '../core/glob.js';
import { type ChangeCondition, changeRuleFinding, compileChangeRule } from './change-rules.js';
import type { Proposal } from './proposal.js';

export type PolicyAction = 'allow' | 'ask' | 'deny';

export interface PolicyRule {
  /** Tool name the rule is for (e.g. 'edit_file', 'read_file'); every tool when absent. */
  tool?: string;
  /** Glob over the workspace-relative path ('src/**', '*.md'); every path when absent. */
  path?: string;
  action: PolicyAction;
  /**
   * A change rule (change-rules.ts): it matches only a change that does this (removes over N lines,
   * deletes the file, adds a secret ...), and only asks or denies, past an allow rule, a grant and --yes.
   */
  change?: ChangeCondition;
  /** A change rule's name in questions, refusals and the audit line; default: its condition in words. */
  name?: string;
}

export interface Policy {
  rules: PolicyRule[];
}

export interface PolicyVerdict {
  action: PolicyAction;
  /** The rule that decided, if any (absent: the default applied). */
  rule?: PolicyRule;
}

/**
 * Decides allow / ask / deny for a tool on a path. Deny beats allow beats ask among all matching rules, so
 * a broad allow can never open a path that a deny rule closes, whatever the order of the rules. Without a
 * rule, the tools that only read (as they declare themselves) are allowed and every change asks.
 */
export class PolicyEngine {
  private readonly compiled: { rule: PolicyRule; matches: (path: string) => boolean }[];
  private readonly changeRules: ReturnType<typeof compileChangeRule>[];
  private readonly readOnly: ReadonlySet<string>;

  /** `readOnlyTools`: the names of the tools that only read (their rules also govern reading a file). */
  constructor(policy: Policy = { rules: [] }, readOnlyTools: Iterable<string> = []) {
    this.readOnly = new Set(readOnlyTools);
    if (!policy || !Array.isArray(policy.rules)) {
      throw new EditgateError('INVALID_INPUT', 'policy must be an object with a "rules" array.');
    }
    this.compiled = [];
    this.changeRules = [];
    for (const [index, rule] of policy.rules.entries()) {
      if (!rule || !['allow', 'ask', 'deny'].includes(rule.action)) {
        throw new EditgateError(
          'INVALID_INPUT',
          `policy rule ${index + 1} needs "action": "allow", "ask" or "deny".`,
          { rule },
        );
      }
      if (rule.change !== undefined) {
        this.changeRules.push(
          compileChangeRule({ ...rule, action: rule.action as 'ask' | 'deny', change: rule.change }, index),
        );
        continue;
      }
      if (rule.name !== undefined)
        throw new EditgateError(
          'INVALID_INPUT',
          `policy rule ${index + 1}: "name" is for a rule with "change"; a tool and path rule is named by them.`,
          { rule },
        );
      const matcher = rule.path ? compileGlob(rule.path) : () => true;
      this.compiled.push({ rule, matches: matcher });
    }
  }

  /**
   * What the change rules find in a proposal, every file's, given what the checks found in it (a rule on
   * secrets or syntax errors matches their findings). `rulePath`: a file's path as rules see it.
   */
  changeFindings(
    proposal: Proposal,
    found: readonly Finding[],
    rulePath: (file: Proposal['files'][number]) => string,
  ): Finding[] {
    const findings: Finding[] = [];
    for (const file of proposal.files) {
      for (const rule of this.changeRules) {
        const finding = changeRuleFinding(rule, proposal.tool, file, rulePath(file), found);
        if (finding) findings.push(finding);
      }
    }
    return findings;
  }

  /** The verdict for `tool` on `path`. */
  evaluate(tool: string, path: string): PolicyVerdict {
    return this.decide(path, this.readOnly.has(tool) ? 'allow' : 'ask', (ruleTool) => ruleTool === tool);
  }

  /**
   * Whether `path` may be read at all (by a read tool, or to compute a change to it): the rules for every
   * tool and for the read-only ones decide; allowed when none does.
   */
  evaluateRead(path: string): PolicyVerdict {
    return this.decide(path, 'allow', (ruleTool) => this.readOnly.has(ruleTool));
  }

  private decide(path: string, otherwise: PolicyAction, forTool: (tool: string) => boolean): PolicyVerdict {
    let ask: PolicyRule | undefined;
    let allow: PolicyRule | undefined;
    for (const { rule, matches } of this.compiled) {
      if (rule.tool !== undefined && !forTool(rule.tool)) continue;
      if (!matches(path)) continue;
      if (rule.action === 'deny') return { action: 'deny', rule };
      if (rule.action === 'allow') allow ??= rule;
      else ask ??= rule;
    }
    if (allow) return { action: 'allow', rule: allow };
    if (ask) return { action: 'ask', rule: ask };
    return { action: otherwise };
  }
}
