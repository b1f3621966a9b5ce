/**
 * Omission placeholders: a model that writes `// ... rest of the code unchanged` or `(existing methods)` in
 * place of code it did not want to repeat. editgate writes text literally, so such a line deletes the code
 * it stands for, silently when changes are approved automatically. A change whose new text brings in a
 * placeholder line its old text did not have is refused (tools/ turns this off with `allowPlaceholders`).
 * Only whole lines count, and only the phrasings models use for elided code, so ordinary comments pass.
 */
import { EditgateError } from './errors.js';

// Comment openers and closers, and brackets around the phrase: what is left is the placeholder's words.
const WRAPPING = /^(?:\/\/+|#+|\/\*+|\*+|<!--|--|;+|\{\/\*|\(|\[)\s*|\s*(?:\*+\/\}?|-->|\)|\])\s*$/g;
const ELLIPSIS = /\.{3}|…/;
// What elided code is called: "rest of the code", "existing methods", "remaining implementation".
const ELIDED =
  /\b(?:rest of (?:the )?(?:code|file|class|function|method|methods|implementation|component|module|logic|content|body|imports|tests)|(?:existing|remaining|other|previous|unchanged|original) (?:code|methods|functions|imports|implementation|logic|content|tests|properties|fields|cases|styles|routes|handlers|exports|definitions|lines|members|props|config|configuration|body)|everything else)\b/i;
// Words that say the code is left out: "... unchanged", "... as before", "... omitted".
const LEFT_OUT =
  /\b(?:unchanged|omitted|for brevity|as before|the same|goes here|(?:code|logic|implementation|methods|content) here|rest|remaining|existing|previous)\b/i;

/** The placeholder words of a line, or null when the line is not an omission placeholder. */
export function placeholderOf(line: string): string | null {
  const trimmed = line.trim();
  if (trimmed === '') return null;
  const isComment = /^(?:\/\/|#|\/\*|\*|<!--|--|;|\{\/\*)/.test(trimmed);
  const bracketed = /^[([].*[)\]]$/.test(trimmed);
  if (!isComment && !bracketed) return null;
  let words = trimmed;
  for (let previous = ''; previous !== words; ) {
    previous = words;
    words = words.replace(WRAPPING, '');
  }
  words = words.trim();
  // `# ...` or `// …` alone: code left out, in a comment that says nothing else.
  if (isComment && /^(?:\.{3}|…)$/.test(words)) return words;
  // A bracketed line must be only the phrase ("(existing methods)"), not code in parentheses.
  if (bracketed && !isComment && !/^[\w\s.…,'-]+$/.test(words)) return null;
  if (ELIDED.test(words)) return words;
  if (ELLIPSIS.test(words) && LEFT_OUT.test(words)) return words;
  return null;
}

/** Each placeholder line of the text, with its 1-based line number. */
export function placeholderLines(text: string): { line: number; text: string; words: string }[] {
  const found: { line: number; text: string; words: string }[] = [];
  text.split(/\r\n|\r|\n/).forEach((line, i) => {
    const words = placeholderOf(line);
    if (words !== null) found.push({ line: i + 1, text: line.trim(), words: words.toLowerCase() });
  });
  return found;
}

/**
 * Refuses (INVALID_INPUT, reason 'placeholder') new text holding a placeholder line the old text does not
 * hold. `field` names the new text for the model ("new_string", "content", "replacement").
 */
export function checkNoNewPlaceholders(oldText: string, newText: string, field: string): void {
  const before = new Set(placeholderLines(oldText).map((found) => found.words));
  const introduced = placeholderLines(newText).filter((found) => !before.has(found.words));
  const first = introduced[0];
  if (!first) return;
  const shown = first.text.length > 120 ? `${first.text.slice(0, 120)}…` : first.text;
  throw new EditgateError(
    'INVALID_INPUT',
    `${field} line ${first.line} is a placeholder for code left out ("${shown}"), and the text it replaces has no such line. Edits are written literally, so the placeholder would delete the code it stands for. Write the real code in full; to change only part of a file, use edit_file with an old_string that covers just the lines that change. Nothing was written.`,
    { reason: 'placeholder', field, line: first.line, placeholder: first.text },
  );
}

/**
 * edit_lines: each replacement checked against the lines it replaces (`replaced[i]`: the text of edit i's
 * lines, or at least every placeholder line among them), with the same field names on both paths.
 */
export function checkLineEditPlaceholders(
  edits: readonly { replacement: string }[],
  replaced: readonly string[],
): void {
  edits.forEach(({ replacement }, i) => {
    const field = edits.length > 1 ? `Edit ${i + 1}: replacement` : 'replacement';
    checkNoNewPlaceholders(replaced[i] ?? '', replacement, field);
  });
}

/** apply_patch: a file the patch adds is new text over none; each hunk's added side over its old side. */
export function checkPatchPlaceholders(
  operations: readonly (
    | { type: 'add'; path: string; content: string }
    | { type: 'delete'; path: string }
    | {
        type: 'update';
        path: string;
        hunks: readonly { lines: readonly { kind: ' ' | '-' | '+'; text: string }[] }[];
      }
  )[],
): void {
  for (const operation of operations) {
    if (operation.type === 'add') checkNoNewPlaceholders('', operation.content, `${operation.path} (added)`);
    if (operation.type !== 'update') continue;
    operation.hunks.forEach((hunk, i) => {
      const side = (kind: '-' | '+') =>
        hunk.lines
          .filter((line) => line.kind === ' ' || line.kind === kind)
          .map((line) => line.text)
          .join('\n');
      const field = `${operation.path} hunk ${i + 1}, the new side`;
      checkNoNewPlaceholders(side('-'), side('+'), field);
    });
  }
}
