import type { Node, Parser, Tree } from 'web-tree-sitter';
import type { Finding } from '../core/findings.js';
import { languageOfPath, parserFor, type SyntaxLanguage } from './grammars.js';
import { addedErrors, type ChangedLines, changedLines, type ErrorSite, lineToShow } from './syntax-delta.js';

/**
 * The syntax errors a change adds to a file (issue #32), found before the write: the old and the new text are
 * read with the file's tree-sitter grammar (grammars.ts), and the errors of the new text that the old did
 * not have are the change's (syntax-delta.ts). A file no grammar reads, or too large to read in the time
 * allowed, gives no finding: the check says only what it saw.
 */

/** Errors shown per file: past these the last one says how many more there are. */
const MOST_SHOWN = 5;
/** Error nodes read per text: a file read with the wrong grammar can be all errors. */
const MOST_SITES = 500;
/** Parsing time allowed per text, in ms: a change is not held up by a file the grammar reads slowly. */
const PARSE_BUDGET_MS = 250;
/** Characters of an unreadable text shown in the message. */
const PREVIEW = 40;

export interface SyntaxOptions {
  /** What the findings ask of the gate: 'info' (shown only, the default), 'ask' or 'deny' (policy decides). */
  severity?: Finding['severity'];
}

/**
 * The syntax errors the change from `before` to `after` adds to the file at `path` (workspace-relative,
 * '/'-separated; its extension picks the grammar), nearest the change first, at most a few. A new file is
 * a change from ''.
 */
export async function syntaxFindings(
  path: string,
  before: string,
  after: string,
  options: SyntaxOptions = {},
): Promise<Finding[]> {
  if (before === after) return [];
  const language = languageOfPath(path);
  if (!language) return [];
  const parser = await parserFor(language);
  const afterSites = errorSitesOf(parser, after);
  // Most changes leave the file readable: the old text is parsed only when the new has errors.
  if (afterSites === undefined || afterSites.length === 0) return [];
  const beforeSites = before === '' ? [] : errorSitesOf(parser, before);
  if (beforeSites === undefined) return [];
  const lines = changedLines(before, after);
  const added = addedErrors(beforeSites, afterSites, lines);
  return findingsOf(path, language, added, lines, options.severity ?? 'info');
}

function findingsOf(
  path: string,
  language: SyntaxLanguage,
  added: readonly ErrorSite[],
  lines: ChangedLines,
  severity: Finding['severity'],
): Finding[] {
  const shown = added.slice(0, MOST_SHOWN);
  return shown.map((site, index) => {
    const more = index === shown.length - 1 && added.length > shown.length ? added.length - shown.length : 0;
    return {
      kind: 'syntax',
      path,
      line: lineToShow(site, lines),
      message: `${describeError(site)} (a syntax error this change adds${more > 0 ? `, and ${more} more` : ''})`,
      severity,
      source: `syntax:${language}`,
    };
  });
}

/** One line about an error, safe on a screen: the file's text is quoted with control characters replaced. */
export function describeError(site: ErrorSite): string {
  if (site.kind === 'missing') return `missing ${quoted(site.type)}`;
  return site.text === '' ? 'text the grammar cannot read' : `cannot read ${quoted(site.text)}`;
}

function quoted(text: string): string {
  // \p{C}: control, format (bidirectional overrides among them), private-use and unassigned characters.
  return `"${text.replace(/[\p{C}"\\]/gu, (c) => (c === '"' || c === '\\' ? `\\${c}` : '?'))}"`;
}

/** The ERROR and MISSING nodes of the text's tree, in order; undefined when the parse ran out of time. */
export function errorSitesOf(parser: Parser, text: string): ErrorSite[] | undefined {
  const deadline = performance.now() + PARSE_BUDGET_MS;
  let tree: Tree | null;
  try {
    tree = parser.parse(text, null, { progressCallback: () => performance.now() > deadline });
  } finally {
    // A cancelled parse would otherwise be resumed by the next text this parser reads.
    parser.reset();
  }
  if (!tree) return undefined;
  try {
    const sites: ErrorSite[] = [];
    collect(tree.rootNode, sites);
    return sites;
  } finally {
    tree.delete();
  }
}

function collect(node: Node, sites: ErrorSite[]): void {
  if (sites.length >= MOST_SITES) return;
  if (node.isMissing || node.isError) {
    const start = node.startPosition;
    const text = node.isError ? firstLine(node.text) : '';
    sites.push({
      row: start.row,
      column: start.column,
      endRow: node.endPosition.row,
      kind: node.isMissing ? 'missing' : 'error',
      type: node.type,
      text,
    });
    // One site per error: what the parser could not read inside it is the same error.
    return;
  }
  if (!node.hasError) return;
  for (const child of node.children) if (child) collect(child, sites);
}

function firstLine(text: string): string {
  const line = text.trimStart().split('\n', 1)[0]!.trimEnd();
  return line.length > PREVIEW ? `${line.slice(0, PREVIEW)}…` : line;
}
