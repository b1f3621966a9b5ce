/**
 * The tolerant tiers' small pure pieces, over single lines or strings, so the in-memory matcher (match.ts)
 * and a streaming matcher can share them. Each says when two texts count as "the same" for one tier and how
 * the model's new text is adjusted so the file keeps its real form. None of them ever guesses by similarity.
 */

// ── trailing whitespace ──────────────────────────────────────────────────────────────────────────────────

function isBlankChar(c: number): boolean {
  return c === 32 || c === 9;
}

/** The line without trailing spaces and tabs (a loop, not a regex: /[ \t]+$/ is quadratic on long runs). */
export function trimTrailingBlanks(line: string): string {
  const end = trimmedLength(line);
  return end === line.length ? line : line.slice(0, end);
}

/** Length of the line without trailing spaces and tabs: `trimTrailingBlanks(line).length`, no copy made. */
export function trimmedLength(line: string): number {
  let end = line.length;
  while (end > 0 && isBlankChar(line.charCodeAt(end - 1))) end--;
  return end;
}

/** Length of `lineContent(line)`, no copy made. */
export function contentLength(line: string): number {
  const end = trimmedLength(line);
  return end === 0 ? 0 : end - leadingBlanks(line);
}

/** Length of the leading spaces and tabs. */
export function leadingBlanks(line: string): number {
  let i = 0;
  while (i < line.length && isBlankChar(line.charCodeAt(i))) i++;
  return i;
}

/** Only spaces and tabs from `from` on. */
export function blankFrom(line: string, from: number): boolean {
  for (let i = from; i < line.length; i++) if (!isBlankChar(line.charCodeAt(i))) return false;
  return true;
}

/** The line without leading and trailing spaces/tabs: what the indentation tier compares. */
export function lineContent(line: string): string {
  const trimmed = trimTrailingBlanks(line);
  return trimmed.slice(leadingBlanks(trimmed));
}

// ── indentation ──────────────────────────────────────────────────────────────────────────────────────────

/**
 * How the file's indentation relates to the model's, uniformly over a window of lines.
 * - 'add' / 'remove': the same whitespace string is prepended to / stripped from every non-blank line (the
 *   model dropped or added a base indentation; its own nested indentation is kept as written).
 * - 'columns': tabs and spaces disagree (e.g. the file uses tabs, the model spaces). Widths are compared in
 *   columns with a tab width the lines themselves must agree on, and new lines are rendered in the file's
 *   style (tabs, with spaces only for a remainder narrower than a tab, or spaces), never a mix of both styles.
 */
export type IndentShift =
  | { kind: 'add'; prefix: string }
  | { kind: 'remove'; prefix: string }
  | { kind: 'columns'; delta: number; tabWidth: number; style: 'tabs' | 'spaces' };

const TAB_WIDTHS = [4, 8, 2] as const;

export function indentWidth(indent: string, tabWidth: number): number {
  let width = 0;
  for (let i = 0; i < indent.length; i++) {
    width = indent.charCodeAt(i) === 9 ? (Math.floor(width / tabWidth) + 1) * tabWidth : width + 1;
  }
  return width;
}

function renderIndent(width: number, style: 'tabs' | 'spaces', tabWidth: number): string {
  if (style === 'spaces') return ' '.repeat(width);
  return '\t'.repeat(Math.floor(width / tabWidth)) + ' '.repeat(width % tabWidth);
}

/**
 * The uniform indentation shift that turns `oldLines` into `fileLines` (same length), or null. Trailing
 * blanks are ignored (this tier includes the trailing-whitespace one); a blank old line must face a blank
 * file line and constrains nothing; every other line must have the same content after its indentation.
 * Null too when the indentation is identical everywhere: that is not this tier's difference.
 */
export function indentShift(fileLines: readonly string[], oldLines: readonly string[]): IndentShift | null {
  const pairs: [string, string][] = [];
  for (let j = 0; j < oldLines.length; j++) {
    const file = trimTrailingBlanks(fileLines[j] ?? '');
    const old = trimTrailingBlanks(oldLines[j]!);
    if (file === '' || old === '') {
      if (file !== old) return null;
      continue;
    }
    const fileLead = leadingBlanks(file);
    const oldLead = leadingBlanks(old);
    if (file.length - fileLead !== old.length - oldLead || !file.startsWith(old.slice(oldLead), fileLead)) {
      return null;
    }
    pairs.push([file.slice(0, fileLead), old.slice(0, oldLead)]);
  }
  const first = pairs[0];
  if (!first || pairs.every(([f, o]) => f === o)) return null;

  const [file0, old0] = first;
  if (file0.length > old0.length && file0.endsWith(old0)) {
    const prefix = file0.slice(0, file0.length - old0.length);
    if (pairs.every(([f, o]) => f === prefix + o)) return { kind: 'add', prefix };
  }
  if (old0.length > file0.length && old0.endsWith(file0)) {
    const prefix = old0.slice(0, old0.length - file0.length);
    if (pairs.every(([f, o]) => o === prefix + f)) return { kind: 'remove', prefix };
  }

  // Tabs against spaces: the tab width under which every line shifts by the same number of columns; when
  // several fit (all lines at one level), the one that needs the smallest shift, i.e. the model most likely
  // wrote each tab as that many spaces.
  let best: { delta: number; tabWidth: number } | undefined;
  for (const tabWidth of TAB_WIDTHS) {
    const delta = indentWidth(file0, tabWidth) - indentWidth(old0, tabWidth);
    if (!pairs.every(([f, o]) => indentWidth(f, tabWidth) - indentWidth(o, tabWidth) === delta)) continue;
    if (!best || Math.abs(delta) < Math.abs(best.delta)) best = { delta, tabWidth };
  }
  if (!best) return null;
  let tabs = 0;
  let spaces = 0;
  for (const [f] of pairs) {
    if (f.startsWith('\t')) tabs++;
    else if (f.startsWith(' ')) spaces++;
  }
  // A window at column 0 says nothing about the file's style; then the model's own style is kept.
  if (tabs === 0 && spaces === 0) tabs = pairs.some(([, o]) => o.startsWith('\t')) ? 1 : 0;
  return { kind: 'columns', ...best, style: tabs > spaces ? 'tabs' : 'spaces' };
}

/** A line of the model's new text, re-indented by the shift found for its match. Blank lines stay as written. */
export function reindentLine(line: string, shift: IndentShift): string {
  if (blankFrom(line, 0)) return line;
  if (shift.kind === 'add') return shift.prefix + line;
  const lead = leadingBlanks(line);
  if (shift.kind === 'remove') {
    // A new line indented less than the removed prefix loses what it has of it (it cannot go below zero).
    let common = 0;
    while (common < lead && common < shift.prefix.length && line[common] === shift.prefix[common]) common++;
    return line.slice(common);
  }
  const width = Math.max(0, indentWidth(line.slice(0, lead), shift.tabWidth) + shift.delta);
  return renderIndent(width, shift.style, shift.tabWidth) + line.slice(lead);
}

// ── typographic punctuation ──────────────────────────────────────────────────────────────────────────────

// Curly and low quotes, primes, hyphens and dashes, minus, no-break and thin spaces, ellipsis.
const TYPOGRAPHIC =
  /[\u2018\u2019\u201A\u201B\u2032\u201C\u201D\u201E\u201F\u2033\u2010-\u2015\u2212\u00A0\u2007\u2009\u202F\u2026]/g;
const TYPOGRAPHIC_ONE = new RegExp(TYPOGRAPHIC.source);

function asciiOf(c: string): string {
  switch (c) {
    case '\u2018':
    case '\u2019':
    case '\u201A':
    case '\u201B':
    case '\u2032':
      return "'";
    case '\u201C':
    case '\u201D':
    case '\u201E':
    case '\u201F':
    case '\u2033':
      return '"';
    case '\u00A0':
    case '\u2007':
    case '\u2009':
    case '\u202F':
      return ' ';
    case '\u2026':
      return '...';
    default:
      return '-';
  }
}

export function hasTypography(text: string): boolean {
  return TYPOGRAPHIC_ONE.test(text);
}

/** Typographic punctuation as ASCII: ‘’ → ', “” → ", dashes and minus → -, odd spaces → space, … → "...". */
export function foldTypography(text: string): string {
  return hasTypography(text) ? text.replace(TYPOGRAPHIC, asciiOf) : text;
}

/**
 * The folded text and the way back: every fold is one character for one, except "…" which becomes three.
 * `toSource` maps a folded offset to the source offset, or -1 when it falls inside an expanded "…".
 */
export function foldWithMap(text: string): { folded: string; toSource(offset: number): number } {
  const expansions: number[] = []; // folded offsets where a "…" became "..."
  const folded = text.replace(TYPOGRAPHIC, (c: string, offset: number) => {
    if (c === '\u2026') expansions.push(offset + 2 * expansions.length);
    return asciiOf(c);
  });
  return {
    folded,
    toSource(offset) {
      let low = 0;
      let high = expansions.length;
      while (low < high) {
        const mid = (low + high) >> 1;
        if (expansions[mid]! < offset) low = mid + 1;
        else high = mid;
      }
      if (low > 0 && expansions[low - 1]! + 3 > offset) return -1;
      return offset - 2 * low;
    },
  };
}

// ── line-number prefixes ─────────────────────────────────────────────────────────────────────────────────

// read_file prints `cat -n` style ("     12\t"); other agents print "    12→" or "  12 | ". Only the one
// separator is part of the prefix: what follows it (indentation included) is the line.
const NUMBERED = /^ *(\d+)(?:\t|→| *\|(?: |$))/;
// A numbered empty line whose tab was trimmed away (right-aligned number, nothing after it).
const BARE_NUMBER = /^ +(\d+)$/;

/**
 * Old-text lines without their line-number prefixes, or null unless every line carries one, the numbers
 * run consecutively (as read_file prints them) and at least one line has a real separator. The rules keep
 * genuine content that starts with numbers (TSV rows, numbered lists) from ever being stripped.
 */
export function stripLineNumbers(lines: readonly string[]): string[] | null {
  const out: string[] = [];
  let expected: number | undefined;
  let separated = false;
  for (const line of lines) {
    const numbered = NUMBERED.exec(line);
    const bare = numbered ? null : BARE_NUMBER.exec(line);
    const match = numbered ?? bare;
    if (!match) return null;
    const number = Number(match[1]);
    if (expected !== undefined && number !== expected) return null;
    expected = number + 1;
    if (numbered) separated = true;
    out.push(numbered ? line.slice(numbered[0].length) : '');
  }
  return separated ? out : null;
}

/** New-text lines with prefixes removed where they occur (the model may have numbered only some lines). */
export function stripLineNumbersLoose(lines: readonly string[]): string[] {
  return lines.map((line) => {
    const numbered = NUMBERED.exec(line);
    if (numbered) return line.slice(numbered[0].length);
    return BARE_NUMBER.test(line) ? '' : line;
  });
}

// ── over-escaped text ────────────────────────────────────────────────────────────────────────────────────

// The escapes a JSON string encoded once too often carries (plus `\'`, as Python's repr writes it).
const ESCAPE = /\\([nrt"'\\])/g;
const ESCAPE_ONE = /\\[nrt"'\\]/;
// With the template-literal escapes (a backquote or `$` after a backslash), where `\${` and `${` mean different things: tried only
// when the plain unescaping finds nothing, and accepted only when it then finds exactly one place.
const TEMPLATE_ESCAPE = /\\([nrt"'\\`$])/g;
const TEMPLATE_ESCAPE_ONE = /\\[`$]/;

export function hasEscapes(text: string): boolean {
  return ESCAPE_ONE.test(text);
}

/** Holds `\`` or `\$` written as two characters (the template-literal escapes). */
export function hasTemplateEscapes(text: string): boolean {
  return TEMPLATE_ESCAPE_ONE.test(text);
}

/**
 * `\n`, `\r`, `\t`, `\"`, `\'`, `\\` written as two characters become the character they stand for;
 * with `template`, `\`` and `\$` too.
 */
export function unescapeText(text: string, options: { template?: boolean } = {}): string {
  return text.replace(options.template ? TEMPLATE_ESCAPE : ESCAPE, (_, c: string) =>
    c === 'n' ? '\n' : c === 'r' ? '\r' : c === 't' ? '\t' : c,
  );
}

/**
 * Whether a new text is itself over-escaped, judged on its own, so the unescaped tier may unescape it. Old
 * text that matched only unescaped says nothing about the new text: a model often over-escapes one and writes
 * the other correctly, and unescaping a correct text corrupts every backslash sequence it holds (`\\` in a
 * raw string, `'\n'` in a message builder). So a new text counts as over-escaped only when it reads as text
 * encoded once too often:
 * - it holds no real line break (an over-escaped text carries them as `\n`), and
 * - every backslash in it begins one of the escapes (a `\d` or `\w` is code, not an escape), at least one, and
 * - it has no bare `"` (an encoding escapes every one), and
 * - it carries `\n` or `\"` (the marks of one text encoded twice), or only kinds of escape that the old text,
 *   which did match only when unescaped, carries too.
 */
export function isOverEscaped(
  newText: string,
  oldText: string,
  options: { template?: boolean } = {},
): boolean {
  if (newText.includes('\n') || newText.includes('\r')) return false;
  const kinds = escapeKinds(newText, options.template === true);
  if (kinds === null || kinds.size === 0) return false;
  if (kinds.has('n') || kinds.has('"')) return true;
  const oldKinds = escapeKinds(oldText, options.template === true) ?? new Set<string>();
  return [...kinds].every((kind) => oldKinds.has(kind));
}

/** The escape letters a text carries, or null when a backslash begins no escape or a `"` stands bare. */
function escapeKinds(text: string, template: boolean): Set<string> | null {
  const known = template ? 'nrt"\'\\`$' : 'nrt"\'\\';
  const kinds = new Set<string>();
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') return null;
    if (c !== '\\') continue;
    const next = text[i + 1];
    if (next === undefined || !known.includes(next)) return null;
    kinds.add(next);
    i++;
  }
  return kinds;
}

// ── blank lines at the ends ──────────────────────────────────────────────────────────────────────────────

/**
 * Old text as its blank lines at the start (`leading`, each with its line break), the rest (`core`: its
 * last line keeps its line break when blank lines followed it) and the blank lines after (`trailing`). Null
 * when there are no blank end lines or nothing else.
 */
export function blankEnds(old: string): { core: string; leading: string; trailing: string } | null {
  const lead = /^(?:[ \t]*\n)+/.exec(old)?.[0] ?? '';
  const rest = old.slice(lead.length);
  const trail = /\n(?:[ \t]*\n)*[ \t]*$/.exec(rest)?.[0] ?? '';
  // A single final line break ends the last line: it is not a blank line.
  const trailing = trail === '\n' ? '' : trail.slice(1);
  const core = trailing === '' ? rest : rest.slice(0, rest.length - trail.length + 1);
  if ((lead === '' && trailing === '') || core.trim() === '') return null;
  return { core, leading: lead, trailing };
}

// ── keeping the file's own text ──────────────────────────────────────────────────────────────────────────

/**
 * The new text for a tolerant match, line by line. Leading and trailing lines the model left unchanged
 * (equal in old and new text) are written back as the file has them, so a tolerated difference (trailing
 * spaces, tabs, curly quotes) never leaks into lines the model did not mean to touch; the lines in between
 * go through `adjust`. `regionLines` are the matched file text's lines, one per old-text line.
 */
export function keepUnchangedLines(
  oldLines: readonly string[],
  regionLines: readonly string[],
  newLines: readonly string[],
  adjust: (line: string) => string,
): string {
  const n = newLines.length;
  const o = oldLines.length;
  let head = 0;
  while (head < n && head < o && newLines[head] === oldLines[head]) head++;
  let tail = 0;
  while (tail < n - head && tail < o - head && newLines[n - 1 - tail] === oldLines[o - 1 - tail]) tail++;
  const out: string[] = [];
  for (let i = 0; i < head; i++) out.push(regionLines[i]!);
  for (let i = head; i < n - tail; i++) out.push(adjust(newLines[i]!));
  for (let i = o - tail; i < o; i++) out.push(regionLines[i]!);
  return out.join('\n');
}
