import type { Node } from 'web-tree-sitter';
import type { ChangedLines, ErrorSite } from './syntax-delta.js';

/**
 * What a C or C++ parse error is evidence of. tree-sitter reads C and C++ before the preprocessor runs, so a
 * macro it cannot expand reads as an error the compiler, with the headers, never reports: `int CJSON_CDECL
 * main(void)`, `CJSON_PUBLIC(cJSON *) f(void);`, a statement macro with no `;` (`TEST_ASSERT_TRUE(x)`,
 * `FMT_PRAGMA_GCC(push_options)`), `FMT_TRY { … }`. And where a file is full of such errors, a broken
 * quote can make tree-sitter's recovery fold the rest of the file into one error that swallows them, so
 * the file has fewer errors after the break than before.
 *
 * What the preprocessor reads, and no macro can change, is the pairing of brackets and the closing of
 * quotes: it tokenizes the text first (strings, character literals, comments) and a macro's arguments
 * must pair their parentheses. So in C and C++ the rule is (one rule, here):
 * - an added error at a macro (its statement, or the one before or after it, names one: an upper-case name
 *   such as `CJSON_PUBLIC`, or a directive) is the change's only when the change also changed that
 *   pairing in its lines;
 * - a change that changed that pairing adds an error even when tree-sitter's delta found none;
 * - an added error in a statement with no macro is the change's as in every language.
 * The pairing of the changed lines is compared between the old text and the new (net opening brackets of
 * each kind, quotes left open at a line's end, a comment or raw string left open), so what the file did
 * before the change (a brace in each branch of an `#if`) is not counted against it.
 */
export function cErrorsAdded(
  added: readonly ErrorSite[],
  nodeOf: (site: ErrorSite) => Node | undefined,
  before: string,
  after: string,
  lines: ChangedLines,
): ErrorSite[] {
  const broken = pairingBroken(before, after, lines);
  if (broken) return added.length > 0 ? [...added] : [broken];
  return added.filter((site) => {
    const node = nodeOf(site);
    if (node === undefined) return false;
    const statement = statementOf(node);
    // tree-sitter's recovery from a macro it cannot read spills into the statements on either side: a `;`
    // missing before `FMT_NOEXCEPT { … }` (read as a second statement), a `;` missing after `TEST(x)`.
    const near = [node, statement, statement.previousNamedSibling, statement.nextNamedSibling];
    return !near.some((each) => each && namesAMacro(each));
  });
}

/** Nodes whose children are statements or declarations, one after another. */
const HOLDERS = new Set([
  'translation_unit',
  'compound_statement',
  'declaration_list',
  'field_declaration_list',
  'enumerator_list',
  'preproc_if',
  'preproc_ifdef',
  'preproc_else',
  'preproc_elif',
  'preproc_elifdef',
]);

/** The statement or declaration an error is in: the error itself when it stands between statements. */
function statementOf(node: Node): Node {
  let statement = node;
  while (statement.parent && !HOLDERS.has(statement.parent.type)) statement = statement.parent;
  return statement;
}

const NAMES = ['identifier', 'type_identifier', 'field_identifier', 'namespace_identifier'];
/** A macro's name by convention: upper case, digits and `_`, two characters or more. */
const MACRO_NAME = /^[A-Z_][A-Z0-9_]+$/;

/** Whether a node is or holds a directive (`#endif`, a missing `#endif` too) or a macro-like name. */
function namesAMacro(statement: Node): boolean {
  if (/^(preproc|#)/.test(statement.type) || statement.text.trimStart().startsWith('#')) return true;
  if (MACRO_NAME.test(statement.text) && /[A-Z]/.test(statement.text)) return true;
  return statement
    .descendantsOfType(NAMES)
    .some((name) => name !== null && MACRO_NAME.test(name.text) && /[A-Z]/.test(name.text));
}

// --- pairing ---------------------------------------------------------------------------------------------

/** The pairing of brackets and quotes in a span of lines, as the preprocessor's tokenizer reads them. */
interface Pairing {
  /** Opening minus closing brackets of each kind. */
  net: Record<'(' | '[' | '{', number>;
  /** Quotes (string or character literal) still open at the end of their line, and the first one's row. */
  unclosed: number;
  firstUnclosedRow: number;
  firstUnclosedQuote: string;
  /** The span ends inside a block comment or a raw string. */
  endsOpen: boolean;
}

const CLOSING: Record<string, '(' | '[' | '{'> = { ')': '(', ']': '[', '}': '{' };

/**
 * The first error the change made to the pairing, as an error site in the new text, or undefined when the
 * changed lines pair their brackets and close their quotes as the old ones did.
 */
export function pairingBroken(before: string, after: string, lines: ChangedLines): ErrorSite | undefined {
  const first = lines.prefix;
  const old = pairingOf(before, first, lines.beforeLines - lines.suffix);
  const now = pairingOf(after, first, lines.afterLines - lines.suffix);
  const last = Math.max(first, lines.afterLines - lines.suffix - 1);
  const at = (row: number, type: string): ErrorSite => ({
    row,
    column: 0,
    endRow: row,
    kind: 'missing',
    type,
    text: '',
  });
  if (now.unclosed > old.unclosed) return at(now.firstUnclosedRow, now.firstUnclosedQuote);
  for (const open of ['{', '(', '['] as const) {
    const more = now.net[open] - old.net[open];
    if (more > 0) return at(last, { '{': '}', '(': ')', '[': ']' }[open]);
    if (more < 0) return at(first, open);
  }
  if (now.endsOpen !== old.endsOpen) return at(last, '*/');
  return undefined;
}

/**
 * Reads `text` from its start (a span may begin inside a comment) and counts the rows [from, to): comments,
 * strings, character literals, raw strings (C++ `R"x(…)x"`) and digit separators (`1'000`) are read as
 * tokens; `#error` and `#warning` lines are prose; a `#define`'s body may open what it does not close
 * (`#define BEGIN_NS namespace x {`), so only its parameter list counts.
 */
export function pairingOf(text: string, from: number, to: number): Pairing {
  const pairing: Pairing = {
    net: { '(': 0, '[': 0, '{': 0 },
    unclosed: 0,
    firstUnclosedRow: -1,
    firstUnclosedQuote: '',
    endsOpen: false,
  };
  let row = 0;
  let lineStart = true;
  /** Inside a #define's body, or a #error line: brackets are not counted there. */
  let uncounted = false;
  /** Inside a #define's parameter list: its `)` ends what is counted. */
  let defineParameters = false;
  let i = 0;
  const counting = () => row >= from && row < to;
  const newline = () => {
    // A backslash before the newline continues the line (and a directive).
    const continued = text[i - 1] === '\\';
    row++;
    if (!continued) {
      uncounted = false;
      defineParameters = false;
      lineStart = true;
    }
  };
  while (i < text.length && row < to) {
    const c = text[i]!;
    if (c === '\n') {
      newline();
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    const atLineStart = lineStart;
    lineStart = false;
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && !(text[i] === '\n' && text[i - 1] !== '\\')) {
        if (text[i] === '\n') row++;
        i++;
      }
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      row += countNewlines(text, i, stop);
      if (end === -1 || row >= to) pairing.endsOpen = true;
      i = stop;
      continue;
    }
    if (c === '#' && atLineStart) {
      const directive = /^#\s*(\w+)\s*/.exec(text.slice(i, i + 40));
      const name = directive?.[1];
      if (name === 'error' || name === 'warning' || name === 'pragma') {
        while (i < text.length && !(text[i] === '\n' && text[i - 1] !== '\\')) {
          if (text[i] === '\n') row++;
          i++;
        }
        continue;
      }
      if (name === 'define') {
        const head = /^#\s*define\s+\w+/.exec(text.slice(i, i + 200));
        i += head ? head[0].length : 1;
        // Its parameter list, when it has one, is read; the body after it is not counted.
        if (text[i] !== '(') uncounted = true;
        else defineParameters = true;
        continue;
      }
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      if (c === "'" && isDigitSeparator(text, i)) {
        i++;
        continue;
      }
      if (c === '"' && isRawStringStart(text, i)) {
        const open = text.indexOf('(', i);
        const delimiter = text.slice(i + 1, open);
        const end = open === -1 ? -1 : text.indexOf(`)${delimiter}"`, open);
        const stop = end === -1 ? text.length : end + delimiter.length + 2;
        row += countNewlines(text, i, stop);
        if (end === -1 || row >= to) pairing.endsOpen = true;
        i = stop;
        continue;
      }
      i++;
      let closed = false;
      while (i < text.length) {
        const d = text[i]!;
        if (d === '\\') {
          if (text[i + 1] === '\n') row++;
          i += 2;
          continue;
        }
        if (d === '\n') break;
        i++;
        if (d === c) {
          closed = true;
          break;
        }
      }
      if (!closed && counting()) {
        if (pairing.unclosed === 0) {
          pairing.firstUnclosedRow = row;
          pairing.firstUnclosedQuote = c;
        }
        pairing.unclosed++;
      }
      continue;
    }
    if (!uncounted && counting()) {
      if (c === '(' || c === '[' || c === '{') pairing.net[c]++;
      else if (c in CLOSING) pairing.net[CLOSING[c]!]--;
    }
    if (defineParameters && c === ')') {
      defineParameters = false;
      uncounted = true;
    }
    i++;
  }
  return pairing;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** `1'000'000` (C++14): a quote inside a number is a digit separator, not a character literal. */
function isDigitSeparator(text: string, at: number): boolean {
  let start = at;
  while (start > 0 && /[\w']/.test(text[start - 1]!)) start--;
  return start < at && /[0-9]/.test(text[start]!) && /[0-9a-fA-F]/.test(text[at + 1] ?? '');
}

/** `R"x(`, `u8R"(`, `LR"(`: a C++ raw string, which may hold anything, newlines too, up to `)x"`. */
function isRawStringStart(text: string, at: number): boolean {
  const prefix = /(?:^|[^\w])(?:u8|u|U|L)?R$/.exec(text.slice(Math.max(0, at - 4), at));
  if (!prefix) return false;
  const open = text.indexOf('(', at);
  return open !== -1 && open - at <= 17 && /^[^\s()\\]*$/.test(text.slice(at + 1, open));
}
