import { type Diff, diffLines, formatUnifiedDiff } from './diff.js';

/** What a person's own version of a file's new text makes of its change, as every face shows it. */
export interface YourVersion {
  diff: Diff;
  unifiedDiff: string;
  stats: { added: number; removed: number };
  texts: { before: string; after: string };
  note: string;
}

/**
 * The change re-diffed against the person's version (the review page's editor, the terminal's `e`): one
 * rule, so both faces show the same diff, counts and note before the person's version is written.
 */
export function yourVersion(
  file: { path: string; kind: string },
  before: string,
  after: string,
): YourVersion {
  const diff = diffLines(before, after);
  return {
    diff,
    unifiedDiff: diff.identical
      ? ''
      : formatUnifiedDiff(diff, {
          oldPath: file.kind === 'create' ? '/dev/null' : file.path,
          newPath: file.path,
        }),
    stats: { added: diff.added, removed: diff.removed },
    texts: { before, after },
    note: 'Your version: this is what is written if you allow it.',
  };
}
