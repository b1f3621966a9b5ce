/**
 * What a check found in a proposed change before it is written (issue #32): a rule on what the diff does,
 * a secret in an added line, a syntax error the change adds, a language server's diagnostic. Findings are
 * shown with the question on every face and told to the model in the result, written or refused.
 */
export interface Finding {
  /** Which kind of check found it. */
  kind: 'rule' | 'secret' | 'syntax' | 'diagnostic';
  /** The file, workspace-relative and '/'-separated, as in the approval request. */
  path: string;
  /** 1-based line in the new text, when the finding has one. */
  line?: number;
  /** One line for people and the model. Never holds a secret's value: a secret is shown masked. */
  message: string;
  /**
   * What it asks of the gate: 'info' is only shown; 'ask' makes the change need a person even when a
   * grant, `--yes` or an allow rule would have let it through; 'deny' refuses it.
   */
  severity: 'info' | 'ask' | 'deny';
  /** The rule or check that found it, e.g. "rule:large-deletion", "secret:aws-access-token", "syntax:python". */
  source: string;
}
