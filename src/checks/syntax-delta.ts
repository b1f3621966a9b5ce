/**
 * Which syntax errors in a file's new text a change added, from the errors the parser reported in the old
 * text and in the new (syntax.ts reads them). Pure: positions in, positions out.
 *
 * Errors already in the file are not the change's. An error outside the changed lines is the same error
 * when it sits at the same place in both texts (the lines above the change keep their numbers, the lines
 * below move by the lines the change added or removed), with the same kind. What is left unmatched on
 * both sides is compared by count: a parser recovering from a broken file may report an old error at a
 * slightly different place once the text nearby changes, so an unmatched new error counts as the
 * change's only when the new text has more unmatched errors than the old had. A change that fixes one
 * error and makes another is not reported; one that adds an error, anywhere, is.
 */

/** One ERROR or MISSING node of a parse tree. Rows and columns are 0-based. */
export interface ErrorSite {
  row: number;
  column: number;
  /** The last row the node covers (the same as row for a missing token). */
  endRow: number;
  /** A token the parser had to assume (`missing`) or text it could not read (`error`). */
  kind: 'missing' | 'error';
  /** For a missing token, what was missing (`}`, `;`, `identifier`); for an error, the node's type. */
  type: string;
  /** The start of the text the parser could not read (up to a line), for the message; empty when missing. */
  text: string;
}

/** The lines the change touched: the common lines at both ends are cut away. */
export interface ChangedLines {
  /** Lines at the start that are the same in both texts. */
  prefix: number;
  /** Lines at the end that are the same in both texts. */
  suffix: number;
  beforeLines: number;
  afterLines: number;
}

export function changedLines(before: string, after: string): ChangedLines {
  const a = before.split('\n');
  const b = after.split('\n');
  const most = Math.min(a.length, b.length);
  let prefix = 0;
  while (prefix < most && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < most - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  return { prefix, suffix, beforeLines: a.length, afterLines: b.length };
}

/** The row an old text's site would have in the new text, or undefined for a row the change replaced. */
function mappedRow(row: number, lines: ChangedLines): number | undefined {
  if (row < lines.prefix) return row;
  if (row >= lines.beforeLines - lines.suffix) return row + lines.afterLines - lines.beforeLines;
  return undefined;
}

function sameSite(before: ErrorSite, after: ErrorSite, lines: ChangedLines): boolean {
  return (
    mappedRow(before.row, lines) === after.row &&
    before.column === after.column &&
    before.kind === after.kind &&
    before.type === after.type
  );
}

/**
 * The new text's errors that the change added, nearest the changed lines first. Empty when the new text has
 * no more unmatched errors than the old.
 */
export function addedErrors(
  beforeSites: readonly ErrorSite[],
  afterSites: readonly ErrorSite[],
  lines: ChangedLines,
): ErrorSite[] {
  const unmatchedBefore = [...beforeSites];
  const unmatchedAfter: ErrorSite[] = [];
  for (const site of afterSites) {
    const same = unmatchedBefore.findIndex((old) => sameSite(old, site, lines));
    if (same === -1) unmatchedAfter.push(site);
    else unmatchedBefore.splice(same, 1);
  }
  const added = unmatchedAfter.length - unmatchedBefore.length;
  if (added <= 0) return [];
  const firstChanged = lines.prefix;
  const lastChanged = Math.max(firstChanged, lines.afterLines - lines.suffix - 1);
  const distance = (site: ErrorSite) =>
    site.endRow < firstChanged
      ? firstChanged - site.endRow
      : site.row > lastChanged
        ? site.row - lastChanged
        : 0;
  return unmatchedAfter
    .map((site, order) => ({ site, order, distance: distance(site) }))
    .sort((x, y) => x.distance - y.distance || x.order - y.order)
    .slice(0, added)
    .map(({ site }) => site)
    .sort((x, y) => x.row - y.row || x.column - y.column);
}

/**
 * The line to show for an added error, 1-based: its own line when it is in the changed lines, else the
 * changed line nearest it. The change caused it, so the change is where to look: a dropped `}` is reported
 * by the parser as missing at the end of the line above, or at the end of the file, and an error the parser
 * began above the change can run into it.
 */
export function lineToShow(site: ErrorSite, lines: ChangedLines): number {
  const first = lines.prefix;
  // A change that only removed lines has none in the new text: the line after the removal is shown.
  const last = Math.max(first, lines.afterLines - lines.suffix - 1);
  if (site.endRow >= first && site.row <= last) return Math.max(site.row, first) + 1;
  return Math.min(Math.max(site.row, first), last) + 1;
}
