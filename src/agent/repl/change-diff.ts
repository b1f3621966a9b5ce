import { diffLines } from '../../core/diff.js';
import { decodeText } from '../../core/text.js';
import { renderDiff } from '../../terminal/diff-view.js';
import type { Palette } from '../../terminal/palette.js';
import { changeKind, type FileChange } from '../tools/file-changes.js';
import { type Look, noteLines } from '../ui/transcript.js';

/** A file a command changed, as a diff segment (as the CLI draws any change), or a note when it cannot be. */
export function changeDiffLines(change: FileChange, look: Look, palette: Palette): string[] {
  const kind = changeKind(change);
  const before = textOf(change.before);
  const after = textOf(change.after);
  const options = { width: look.width, color: look.level, theme: palette.theme };
  if (before === undefined || after === undefined) {
    const why = change.before === undefined || change.after === undefined ? 'too large to show' : 'binary';
    return noteLines(`${change.relative} ${kind} by the command (${why}).`, look);
  }
  return renderDiff(
    {
      path: change.relative,
      kind: kind === 'created' ? 'create' : kind === 'deleted' ? 'delete' : 'modify',
      diff: diffLines(before, after),
    },
    options,
  );
}

function textOf(bytes: Buffer | null | undefined): string | undefined {
  if (bytes === null) return '';
  if (bytes === undefined) return undefined;
  try {
    return decodeText(bytes).text;
  } catch {
    return undefined;
  }
}
