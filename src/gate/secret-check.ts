/**
 * Secrets in what a change adds (issue #32): every added line is checked against secretlint's recommended
 * rule preset (@secretlint/secretlint-rule-preset-recommend: AWS, GCP, GitHub, npm, Slack, OpenAI,
 * Anthropic, private keys, connection strings ...), a maintained set, not a list of ours. A hit is a finding
 * of severity 'ask' (a change rule with `secrets` can make it 'deny'), which says the line and the kind of
 * secret and shows the value masked. The values themselves are kept here, beside the proposal and never
 * on it, so every face can mask them in what it shows (`maskSecretsIn`) and none can print them by mistake.
 */
import type { Diff } from '../core/diff.js';
import type { Finding } from '../core/findings.js';
import type { CheckContext } from './checks.js';
import type { Proposal } from './proposal.js';

/** The secret values found in a proposal's added lines, kept off the proposal itself (see above). */
const secretsOfProposal = new WeakMap<Proposal, readonly string[]>();

/** secretlint, loaded at the first change that adds a line (never on start-up). */
let secretlint: Promise<(path: string, content: string) => Promise<SecretHit[]>> | undefined;

interface SecretHit {
  /** secretlint's rule, e.g. "@secretlint/secretlint-rule-github". */
  ruleId: string;
  /** What the rule found, e.g. "GITHUB_TOKEN". */
  messageId: string;
  /** 0-based offsets in the content linted. */
  range: readonly [number, number];
}

function loadSecretlint(): Promise<(path: string, content: string) => Promise<SecretHit[]>> {
  secretlint ??= import('./secretlint-rules.js').then(({ lintSource, creator }) => {
    const config = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: creator }] };
    return async (path: string, content: string) => {
      const result = await lintSource({
        source: { filePath: path, content, contentType: 'text', ext: extensionOf(path) },
        // maskSecrets: secretlint's own messages are never shown, but masked they hold nothing to leak.
        options: { config, maskSecrets: true, noPhysicFilePath: true },
      });
      return result.messages.map((message) => ({
        ruleId: message.ruleId,
        messageId: message.messageId ?? message.ruleId,
        range: message.range,
      }));
    };
  });
  return secretlint;
}

/** secretlint loaded and run once on a line of no secret: its first lint costs more again than later ones. */
let prepared: Promise<unknown> | undefined;

/**
 * Start loading secretlint now (it takes a few hundred milliseconds cold, and its first lint another tens),
 * so it is ready by the time a change is computed and screened. A failure to load is reported by the check
 * itself.
 */
export function prepareSecretCheck(): void {
  prepared ??= loadSecretlint()
    .then((lint) => lint('prepare.txt', 'a line with no secret\n'))
    .catch(() => undefined);
}

/**
 * The check: secrets in the lines each file's change adds. A line is taken with the added lines next to it
 * (a private key spans several). secretlint's "secretlint-disable" comments are not obeyed: the text comes
 * from a model, and a comment it wrote must not switch off the check of what it wrote.
 */
export async function secretFindings(proposal: Proposal, context: CheckContext): Promise<Finding[]> {
  const findings: Finding[] = [];
  const values: string[] = [];
  for (const file of proposal.files) {
    const added = addedLines(file.diff);
    if (added.length === 0) continue;
    const lint = await loadSecretlint();
    context.signal?.throwIfAborted();
    const content = added.map((line) => line.text).join('\n');
    const starts: number[] = [];
    let offset = 0;
    for (const line of added) {
      starts.push(offset);
      offset += line.text.length + 1;
    }
    const neutralized = content.replace(/secretlint-(disable|enable)/gi, (directive) =>
      '_'.repeat(directive.length),
    );
    for (const hit of await lint(file.path, neutralized)) {
      const value = content.slice(hit.range[0], hit.range[1]);
      if (value.trim() === '') continue;
      values.push(value);
      const index = lineAt(starts, hit.range[0]);
      findings.push({
        kind: 'secret',
        path: file.path,
        line: added[index]!.newLine,
        message: `${secretName(hit)} (${maskSecret(value)}) in an added line: keep secrets out of files (read it from the environment or a secret store)`,
        severity: 'ask',
        source: `secret:${hit.ruleId.replace(/^@secretlint\/secretlint-rule-/, '')}`,
      });
    }
  }
  if (values.length > 0) keepSecrets(proposal, values);
  return findings;
}

/** A secret as it may be shown: its first 4 characters when it is long enough to keep most hidden, then stars. */
export function maskSecret(value: string): string {
  const firstLine = value.split('\n', 1)[0]!;
  const shown = value.length >= 16 ? firstLine.slice(0, 4) : '';
  return `${shown}${'*'.repeat(Math.min(16, Math.max(8, value.length - shown.length)))}`;
}

/** Keep `values` as secrets of `proposal` (and of a proposal made from it: a person's version, some hunks). */
export function keepSecrets(proposal: Proposal, values: readonly string[]): void {
  const kept = secretsOfProposal.get(proposal) ?? [];
  secretsOfProposal.set(proposal, [...new Set([...kept, ...values])]);
}

/** The secret values found in `proposal` (empty when none). */
export function secretsOf(proposal: Proposal): readonly string[] {
  return secretsOfProposal.get(proposal) ?? [];
}

/**
 * `text` with every secret found in `proposal` masked, each line of a secret that spans several: what a
 * face shows and what the model is told of a change.
 */
export function maskSecretsIn(text: string, secrets: readonly string[]): string {
  let masked = text;
  for (const secret of secrets) {
    for (const part of secret.split('\n')) {
      if (part.trim().length < 4) continue;
      masked = masked.split(part).join(maskSecret(part));
    }
  }
  return masked;
}

interface AddedLine {
  text: string;
  newLine: number;
}

function addedLines(diff: Proposal['diff']): AddedLine[] {
  const added: AddedLine[] = [];
  for (const hunk of diff.hunks)
    for (const line of hunk.lines)
      if (line.kind === 'add' && line.newLine !== undefined)
        added.push({ text: line.text, newLine: line.newLine });
  return added;
}

/** The index of the line an offset is in, given each line's first offset (ascending). */
function lineAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** "GITHUB_TOKEN" → "GitHub token"-like words a person reads: "github token". */
function secretName(hit: SecretHit): string {
  const words = hit.messageId
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot) : '';
}

/** A diff with the secrets masked in its lines (the same hunks and lines: only text differs). */
export function maskSecretsInDiff(diff: Diff, secrets: readonly string[]): Diff {
  if (secrets.length === 0) return diff;
  return {
    ...diff,
    hunks: diff.hunks.map((hunk) => ({
      ...hunk,
      lines: hunk.lines.map((line) => ({ ...line, text: maskSecretsIn(line.text, secrets) })),
    })),
  };
}

/** Any JSON-like value (a tool call's input, a result's details) with the secrets masked in its strings. */
export function maskSecretsInValue<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const mask = (item: unknown): unknown => {
    if (typeof item === 'string') return maskSecretsIn(item, secrets);
    if (Array.isArray(item)) return item.map(mask);
    if (item && typeof item === 'object' && Object.getPrototypeOf(item) === Object.prototype)
      return Object.fromEntries(Object.entries(item).map(([key, entry]) => [key, mask(entry)]));
    return item;
  };
  return mask(value) as T;
}
