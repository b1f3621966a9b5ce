import type { Node, Parser, Tree } from 'web-tree-sitter';
import type { Finding } from '../core/findings.js';
import { cErrorsAdded } from './c-preprocessor.js';
import { languageOfPath, parserFor, type SyntaxLanguage } from './grammars.js';
import { parseText, RecentTrees } from './recent-trees.js';
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
const PARSE_BUDGET_MS = 1000;
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
  // The new text is read first, from the old text's tree when a recent change left it (the next change to a
  // file), else whole. Most changes leave a file readable, and then the old text is never read: the first
  // change to a file costs one full parse, not two.
  const known = before === '' ? undefined : recent.get(language, before);
  const afterTree = treeOf(parser, language, after, known && { text: before, tree: known });
  // Too slow to read in the time allowed: no finding, rather than a guess.
  if (!afterTree) return [];
  const nodes = new Map<ErrorSite, Node>();
  const afterSites = errorSitesOf(afterTree, language, nodes);
  if (afterSites.length === 0) return [];
  // The old text, from the new text's tree: only what the change touched is read again.
  const beforeTree =
    before === '' ? undefined : (known ?? treeOf(parser, language, before, { text: after, tree: afterTree }));
  if (before !== '' && !beforeTree) return [];
  const beforeSites = beforeTree ? errorSitesOf(beforeTree, language) : [];
  const lines = changedLines(before, after);
  let added = addedErrors(beforeSites, afterSites, lines);
  if (language === 'c' || language === 'cpp')
    added = cErrorsAdded(added, (site) => nodes.get(site), before, after, lines);
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

const recent = new RecentTrees();

/** The text's tree: a recent one, or read now (from `from`'s tree when given); kept for the next change. */
function treeOf(
  parser: Parser,
  language: SyntaxLanguage,
  text: string,
  from?: { text: string; tree: Tree },
): Tree | undefined {
  const known = recent.get(language, text);
  if (known) return known;
  const tree = parseText(parser, text, PARSE_BUDGET_MS, from);
  if (tree) recent.keep(language, text, tree);
  return tree;
}

/**
 * The ERROR and MISSING nodes of a tree, in order (and in Python, the blocks whose indentation Python
 * refuses); each site's node is put in `nodes` when given.
 */
export function errorSitesOf(
  tree: Tree,
  language: SyntaxLanguage,
  nodes?: Map<ErrorSite, Node>,
): ErrorSite[] {
  const sites: ErrorSite[] = [];
  collect(tree.rootNode, sites, nodes);
  if (language === 'python') {
    sites.push(...indentationSites(tree.rootNode));
    sites.sort((a, b) => a.row - b.row || a.column - b.column);
  }
  return sites;
}

function collect(node: Node, sites: ErrorSite[], nodes: Map<ErrorSite, Node> | undefined): void {
  if (sites.length >= MOST_SITES) return;
  if (node.isMissing || node.isError) {
    const start = node.startPosition;
    const text = node.isError ? firstLine(node.text) : '';
    const site: ErrorSite = {
      row: start.row,
      column: start.column,
      endRow: node.endPosition.row,
      kind: node.isMissing ? 'missing' : 'error',
      type: node.type,
      text,
    };
    sites.push(site);
    nodes?.set(site, node);
    // One site per error: what the parser could not read inside it is the same error.
    return;
  }
  if (!node.hasError) return;
  for (const child of node.children) if (child) collect(child, sites, nodes);
}

function firstLine(text: string): string {
  const line = text.trimStart().split('\n', 1)[0]!.trimEnd();
  return line.length > PREVIEW ? `${line.slice(0, PREVIEW)}…` : line;
}

/**
 * Python's indentation errors, which tree-sitter-python reads past without an error node: a block whose
 * statements do not all start at one column (an unexpected indent, or a dedent to no enclosing block's
 * column), a block not indented past its header, and a block with no statement (a header whose body was
 * lost). Only the first statement of a line counts (`a = 1; b = 2` is one line), and comments do not.
 */
export function indentationSites(root: Node): ErrorSite[] {
  const sites: ErrorSite[] = [];
  const check = (block: Node, headerRow: number, headerColumn: number) => {
    let column: number | undefined;
    let lastRow = -1;
    let statements = 0;
    for (const child of block.namedChildren) {
      // An error node is the parser's own error, already a site.
      if (!child || child.type === 'comment' || child.isError) continue;
      statements++;
      const start = child.startPosition;
      if (start.row === lastRow || start.row === headerRow) {
        lastRow = child.endPosition.row;
        continue;
      }
      lastRow = child.endPosition.row;
      const misplaced = column === undefined ? start.column <= headerColumn : start.column !== column;
      column ??= start.column;
      if (misplaced)
        sites.push({ ...siteAt(child), kind: 'error', type: 'indentation', text: 'indentation' });
    }
    // A body the parser could not read is its error, not a second one.
    if (statements === 0 && block.type === 'block' && !block.parent?.hasError)
      sites.push({ ...siteAt(block), kind: 'missing', type: 'indented block', text: '' });
  };
  const visit = (node: Node, headerRow: number, headerColumn: number) => {
    if (sites.length >= MOST_SITES) return;
    if (node.type === 'block' || node.type === 'module') check(node, headerRow, headerColumn);
    for (const child of node.namedChildren) {
      // Blocks are found in statements and their clauses, never in an expression.
      if (!child || !/statement|definition|clause|block/.test(child.type)) continue;
      // A block's header is the statement (or clause) that holds it.
      const start = node.type === 'block' || node.type === 'module' ? child.startPosition : undefined;
      visit(child, start?.row ?? headerRow, start?.column ?? headerColumn);
    }
  };
  visit(root, -1, -1);
  return sites;
}

function siteAt(node: Node): Pick<ErrorSite, 'row' | 'column' | 'endRow'> {
  return { row: node.startPosition.row, column: node.startPosition.column, endRow: node.startPosition.row };
}
