import type { Finding } from './findings.js';

/**
 * Findings (findings.ts) in the words every face shows them in: the terminal prompt and preview, the chat's
 * card, the MCP question, the proxy's card, the model's result. One rule, so a finding reads the same
 * wherever it is met. A finding holds no secret's value, so these lines hold none either.
 */

/** One finding on one line: "src/a.ts:3: Github token (ghp_****…) in an added line [secret:github]". */
export function findingLine(finding: Finding): string {
  const where = finding.line === undefined ? finding.path : `${finding.path}:${finding.line}`;
  return `${where}: ${finding.message} [${finding.source}]`;
}

/** The mark before a finding: what it asks of the gate. */
const MARK: Record<Finding['severity'], string> = { deny: '✖', ask: '!', info: '·' };

/**
 * What the checks found, for a person deciding: which rules or checks asked (they ask past an allow rule, a
 * grant or --yes, so the person knows why they are asked), then one line per finding. Empty when none.
 */
export function findingsLines(findings: readonly Finding[] | undefined): string[] {
  if (!findings || findings.length === 0) return [];
  const asked = askedByLine(findings);
  return [
    ...(asked === undefined ? [] : [asked]),
    ...findings.map((finding) => `${MARK[finding.severity]} ${findingLine(finding)}`),
  ];
}

/** Which rules or checks asked about the change, and that they ask past what would let it through. */
export function askedByLine(findings: readonly Finding[] | undefined): string | undefined {
  const asking = [
    ...new Set(
      (findings ?? []).filter((finding) => finding.severity !== 'info').map((finding) => finding.source),
    ),
  ];
  if (asking.length === 0) return undefined;
  return `Asked by ${asking.join(', ')}: ${asking.length === 1 ? 'it asks' : 'they ask'} about this change even where an allow rule, a grant or --yes would not.`;
}

/** What the checks found, for the model's result (written or refused): '' when nothing. */
export function findingsNote(findings: readonly Finding[] | undefined): string {
  if (!findings || findings.length === 0) return '';
  return `\nChecks on this change found:\n${findings.map((finding) => `- ${findingLine(finding)}`).join('\n')}`;
}
