import type { LspDiagnostic } from './language-server.js';
import type { ChangedLines } from './syntax-delta.js';

/**
 * Which of a language server's diagnostics for a file's new text a change added, from what it said of the
 * old text and of the new (issue #32). Pure: diagnostics in, diagnostics out.
 *
 * A diagnostic is matched by what it says, not where: its severity, source, code and message. Lines move
 * when a change adds or removes lines above an old error, and that error is not the change's. So for each
 * thing said, the change added as many as the new text has more of it than the old; when the old text had
 * some too, the ones that sit where an old one sat (its line moved by the change) are the old ones, and of
 * the rest those nearest the changed lines are the change's. A change that fixes one error and makes a
 * different one is reported for the new one; one that only moves an error is not reported.
 */

/** What a diagnostic says, whatever its place. */
export function diagnosticKey(diagnostic: LspDiagnostic): string {
  return JSON.stringify([
    diagnostic.severity ?? 1,
    diagnostic.source ?? '',
    diagnostic.code ?? '',
    diagnostic.message.replace(/\s+/g, ' ').trim(),
  ]);
}

/** The diagnostics of `after` that the change from the old text added, in line order. */
export function addedDiagnostics(
  before: readonly LspDiagnostic[],
  after: readonly LspDiagnostic[],
  lines: ChangedLines,
): LspDiagnostic[] {
  const old = groupBy(before);
  const added: LspDiagnostic[] = [];
  for (const [key, fresh] of groupBy(after)) {
    const previous = old.get(key) ?? [];
    const extra = fresh.length - previous.length;
    if (extra <= 0) continue;
    // An old one's place in the new text: the new diagnostic found there is that old one, moved.
    const moved = new Set(previous.map((diagnostic) => mappedLine(diagnostic.range.start.line, lines)));
    const unplaced = fresh.filter((diagnostic) => !moved.delete(diagnostic.range.start.line));
    const candidates = unplaced.length >= extra ? unplaced : fresh;
    added.push(
      ...candidates
        .map((diagnostic, order) => ({ diagnostic, order, distance: distanceToChange(diagnostic, lines) }))
        .sort((x, y) => x.distance - y.distance || x.order - y.order)
        .slice(0, extra)
        .map(({ diagnostic }) => diagnostic),
    );
  }
  return added.sort(
    (x, y) => x.range.start.line - y.range.start.line || x.range.start.character - y.range.start.character,
  );
}

function groupBy(diagnostics: readonly LspDiagnostic[]): Map<string, LspDiagnostic[]> {
  const groups = new Map<string, LspDiagnostic[]>();
  for (const diagnostic of diagnostics) {
    const key = diagnosticKey(diagnostic);
    const group = groups.get(key);
    if (group) group.push(diagnostic);
    else groups.set(key, [diagnostic]);
  }
  return groups;
}

/** The line an old text's line has in the new text; -1 for a line the change replaced. */
function mappedLine(line: number, lines: ChangedLines): number {
  if (line < lines.prefix) return line;
  if (line >= lines.beforeLines - lines.suffix) return line + lines.afterLines - lines.beforeLines;
  return -1;
}

/** How many lines a new text's diagnostic lies from the changed lines (0 inside them). */
function distanceToChange(diagnostic: LspDiagnostic, lines: ChangedLines): number {
  const first = lines.prefix;
  const last = Math.max(first, lines.afterLines - lines.suffix - 1);
  const start = diagnostic.range.start.line;
  const end = Math.max(start, diagnostic.range.end.line);
  if (end < first) return first - end;
  if (start > last) return start - last;
  return 0;
}
