import { findingsLines } from '../core/finding-words.js';
import type { Finding } from '../core/findings.js';
import { describeRule } from '../gate/describe-rule.js';
import type { PolicyRule } from '../gate/policy.js';
import type { ToolFailure, ToolSuccess } from '../tools/result.js';

/**
 * The direct commands (edit, write, lines, undo) are typed by a person, but the tools' messages are written
 * for a model: they repeat the changed region (the person has just seen the diff) and name tool parameters
 * (`replace_all`, `old_string`) the person never typed. These turn a result into what the person reads:
 * the outcome in a line, and after a refusal what happened (never the model's advice) and a `hint:` in the
 * command line's own words.
 */

/** The outcome line, what tolerance the match needed, and what an after-change hook said. */
export function successForPeople(command: string, result: ToolSuccess): string {
  const { summary, tiers, hookMessage } = result.details;
  if (typeof summary !== 'string') return result.message;
  const lines = [summary];
  const tolerated = Array.isArray(tiers) ? [...new Set(tiers.filter((tier) => tier !== 'exact'))] : [];
  if (tolerated.length > 0) {
    const what = command === 'edit' ? '--old' : 'the text';
    lines.push(`Note: ${what} did not match exactly; it matched after tolerating ${tolerated.join(', ')}.`);
  }
  const { findings } = result.details;
  if (Array.isArray(findings)) lines.push(...findingsLines(findings as Finding[]));
  if (typeof hookMessage === 'string' && hookMessage !== '') {
    lines.push('', 'After-change check:', hookMessage);
  }
  return lines.join('\n');
}

/**
 * A refusal as the person who typed the command reads it: `CODE: what happened`. An error keeps what
 * happened apart from the advice for a model (read_file, old_string, "ask the user": core/errors.ts), so
 * the person gets what happened as it was said, and `hintForPeople` says what to do next in the command's
 * own options. Nothing of the model's message is rewritten.
 */
export function failureForPeople(command: string, result: ToolFailure): string {
  return `${result.code}: ${personWording(command, result) ?? result.happened}`;
}

/** The refusals told from their details, in words about the person and the command they typed. */
function personWording(command: string, { code, details }: ToolFailure): string | undefined {
  const path = typeof details.path === 'string' ? details.path : 'the file';
  const what = command === 'read' ? `reading ${path}` : `the change to ${path}`;
  if (code === 'DENIED_USER') {
    const reason = typeof details.reason === 'string' && details.reason !== '' ? details.reason : undefined;
    return reason ? `you said no to ${what}: ${reason}` : `you said no to ${what}; nothing was changed.`;
  }
  if (code === 'DENIED_POLICY' && Array.isArray(details.findings)) {
    // A change rule or a check refused it: which, and what each found (secrets masked).
    return [
      `Policy does not allow ${what}; nothing was changed.`,
      ...findingsLines(details.findings as Finding[]),
    ].join('\n');
  }
  if (code === 'DENIED_POLICY') {
    const rule = isRule(details.rule) ? ` (rule: ${describeRule(details.rule)})` : '';
    return `Policy does not allow ${what}${rule}; nothing was changed.`;
  }
  return undefined;
}

function isRule(value: unknown): value is Pick<PolicyRule, 'tool' | 'path' | 'action'> {
  return typeof value === 'object' && value !== null && 'action' in value;
}

/** What to do next, in terms of this command's options; undefined when the message already says it. */
export function hintForPeople(
  command: string,
  result: ToolFailure,
  input: Record<string, unknown>,
  configFile?: string,
): string | undefined {
  const { code, details } = result;
  switch (code) {
    case 'AMBIGUOUS': {
      const count = typeof details.count === 'number' ? details.count : undefined;
      return `give more of the surrounding text in --old so that it matches one place only, or add --replace-all to replace ${count === undefined ? 'every one' : `all ${count}`}.`;
    }
    case 'NOT_FOUND':
      return 'copy --old exactly from the file, indentation included (--old-file PATH suits text over several lines); editgate replaces literal text, not patterns.';
    case 'NO_CHANGE':
      return '--old and --new are the same text; give the new text in --new.';
    case 'FILE_NOT_FOUND':
      return command === 'undo' || command === 'read'
        ? undefined
        : "to create the file: editgate write FILE (the content on standard input, or --content TEXT), or editgate edit FILE --old '' --new TEXT.";
    case 'INVALID_INPUT':
      return command === 'edit' && input.old_string === ''
        ? 'an empty --old only creates a missing (or empty) file; give the text to replace, or use editgate write FILE to replace it all.'
        : undefined;
    case 'INVALID_RANGE':
      return '--range START:END counts lines from 1 and leaves END out: 3:5 replaces lines 3 and 4, 3:3 inserts before line 3, and 7 is line 7 alone.';
    case 'TOO_LARGE':
      return 'on a file this large, use editgate edit FILE --old TEXT --new TEXT, or editgate lines FILE --range START:END --with TEXT.';
    case 'STALE':
      return command === 'undo'
        ? "undo only takes back editgate's own last change while the file still holds it; change the file back by hand (or with your version control)."
        : 'the file changed while editgate was working on it; run the command again to see the diff against what it holds now.';
    case 'ENCODING':
      return command === 'undo'
        ? undefined
        : 'the file is not UTF-8 (nor UTF-16 with a byte-order mark): give its encoding with --encoding ENC, e.g. --encoding latin1 or --encoding windows-1252.';
    case 'OUTSIDE_ROOT':
      return 'to work on files elsewhere, pass --root DIR (the folder that holds them).';
    case 'DENIED_POLICY':
      return `a rule in ${configFile ?? 'the config file'} refused the change; change the rule if this change should be allowed.`;
    default:
      return undefined;
  }
}

/**
 * A change computed under --dry-run (the tools in preview mode: staged, not written), told as what would
 * happen. The staged change's id and expiry mean nothing once the command exits, so they are left out;
 * `details.dryRun` says what the result is.
 */
export function dryRunResult(result: ToolSuccess): ToolSuccess {
  const { changeId: _id, expiresAt: _expires, ...details } = result.details;
  if (details.kind === 'noop' || typeof details.path !== 'string')
    return { ...result, details: { ...details, dryRun: true } };
  const path = details.path;
  const lines = `+${details.added} -${details.removed} lines`;
  const replacements =
    typeof details.replacements === 'number'
      ? `${details.replacements} replacement${details.replacements === 1 ? '' : 's'}, `
      : '';
  const what =
    details.kind === 'create'
      ? `${path} would be created (${lines})`
      : details.kind === 'delete'
        ? `${path} would be deleted (${lines})`
        : details.tool === 'undo_edit'
          ? `the last change to ${path} would be undone (${lines})`
          : `${path} would be changed (${replacements}${lines})`;
  const summary = `Dry run: ${what}; nothing was written.`;
  return { ok: true, message: summary, details: { ...details, summary, written: false, dryRun: true } };
}
