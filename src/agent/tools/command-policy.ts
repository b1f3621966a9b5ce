import type { PolicyRule } from '../../gate/policy.js';

/**
 * Which shell commands run without asking, as Codex decides it: by the command's leading words. Rules come
 * from the project's policy (editgate.config.json) with `"tool": "bash"`; their `path` holds the command
 * prefix in words (`"npm test"` allows `npm test`, `npm test -- --watch`, not `npm testx`), and a rule
 * without `path` covers every command. Deny beats allow beats ask, as for files.
 *
 * Only a simple command can be allowed by prefix: one with a `;`, `&&`, `|`, a redirection or a command
 * substitution could run anything after the allowed words, so it is asked about (unless a rule allows
 * every command). A deny rule is checked against each part of a compound command.
 */
export type CommandVerdict = { action: 'allow' | 'ask' | 'deny'; rule?: string };

interface CommandRule {
  words: string[] | undefined;
  action: 'allow' | 'ask' | 'deny';
  text: string;
}

export class CommandPolicy {
  private readonly rules: CommandRule[];

  constructor(rules: readonly PolicyRule[] = []) {
    this.rules = rules
      .filter((rule) => rule.tool === 'bash')
      .map((rule) => ({
        words: rule.path === undefined ? undefined : (splitWords(rule.path) ?? [rule.path]),
        action: rule.action,
        text: rule.path === undefined ? 'every command' : rule.path,
      }));
  }

  evaluate(command: string): CommandVerdict {
    const parts = commandParts(command);
    for (const rule of this.rules) {
      if (rule.action !== 'deny') continue;
      if (!rule.words || parts.some((words) => startsWith(words, rule.words!)))
        return { action: 'deny', rule: rule.text };
    }
    const simple = parts.length === 1 && !hasShellSyntax(command) ? parts[0] : undefined;
    const allow = this.rules.find(
      (rule) =>
        rule.action === 'allow' &&
        (rule.words === undefined || (simple !== undefined && startsWith(simple, rule.words))),
    );
    if (allow) return { action: 'allow', rule: allow.text };
    return { action: 'ask' };
  }
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length > 0 && prefix.length <= words.length && prefix.every((word, i) => words[i] === word);
}

/** Operators, redirections and substitutions outside quotes: what makes a command more than its words. */
export function hasShellSyntax(command: string): boolean {
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      continue;
    }
    if (c === '\\') {
      i++;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '`' || (c === '$' && command[i + 1] === '(')) return true;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (';&|<>`()\n\r'.includes(c) || (c === '$' && command[i + 1] === '(')) return true;
  }
  return false;
}

/** The words of each simple command in `command`, split at ; & | and newlines outside quotes. */
export function commandParts(command: string): string[][] {
  const parts: string[][] = [];
  let current = '';
  let quote: '"' | "'" | undefined;
  const flush = () => {
    const words = splitWords(current);
    if (words && words.length > 0) parts.push(words);
    current = '';
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      current += c;
      if (c === '\\' && quote === '"') current += command[++i] ?? '';
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '\\') {
      current += c + (command[++i] ?? '');
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      current += c;
    } else if (';&|\n\r()`'.includes(c)) flush();
    else current += c;
  }
  flush();
  return parts;
}

/** Shell words with quotes removed; undefined for an unterminated quote. */
export function splitWords(text: string): string[] | undefined {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && '"\\$`'.includes(text[i + 1] ?? '')) word += text[++i];
      else word += c;
      continue;
    }
    if (c === '\\') {
      word += text[++i] ?? '';
      inWord = true;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) return undefined;
  if (inWord) words.push(word);
  return words;
}
