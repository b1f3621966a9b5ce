import type { Edit, Parser, Point, Tree } from 'web-tree-sitter';

/**
 * Parse trees of the texts read last, so the next text is read incrementally: a change's new text is read
 * from its old text's tree (tree-sitter re-reads only what the edit touched), and the next change to the
 * same file starts from the tree of the text the last one wrote. A 60 KB file is then read in full once.
 */
export class RecentTrees {
  /** Most recently used last; keyed by language, then by the text itself (compared whole, never by a hash). */
  private readonly trees = new Map<string, Tree>();
  private readonly languages = new Map<string, string>();

  constructor(private readonly most = 8) {}

  /** The tree of exactly this text in this language, if it is one of the recent ones. */
  get(language: string, text: string): Tree | undefined {
    const tree = this.trees.get(text);
    if (!tree || this.languages.get(text) !== language) return undefined;
    this.trees.delete(text);
    this.trees.set(text, tree);
    return tree;
  }

  /**
   * Keeps the tree of a text that has none here (the cache owns it from now on and deletes it when it is
   * pushed out, after the caller's synchronous use: nothing is pushed out while a check reads its trees).
   */
  keep(language: string, text: string, tree: Tree): void {
    const old = this.trees.get(text);
    if (old === tree) return;
    old?.delete();
    this.trees.delete(text);
    this.trees.set(text, tree);
    this.languages.set(text, language);
    while (this.trees.size > this.most) {
      const [oldest, entry] = this.trees.entries().next().value as [string, Tree];
      entry.delete();
      this.trees.delete(oldest);
      this.languages.delete(oldest);
    }
  }
}

/**
 * Reads `text`, from `from` (the tree of another text in the same language) when given: the edit between
 * the two texts is the span between their common start and common end. Undefined when the parse took
 * longer than `budgetMs`.
 */
export function parseText(
  parser: Parser,
  text: string,
  budgetMs: number,
  from?: { text: string; tree: Tree },
): Tree | undefined {
  let old: Tree | null = null;
  if (from) {
    old = from.tree.copy();
    old.edit(editBetween(from.text, text));
  }
  const deadline = performance.now() + budgetMs;
  try {
    return parser.parse(text, old, { progressCallback: () => performance.now() > deadline }) ?? undefined;
  } finally {
    old?.delete();
    // A cancelled parse would otherwise be resumed by the next text this parser reads.
    parser.reset();
  }
}

/** The edit from `before` to `after`, in UTF-16 code units as web-tree-sitter counts. */
export function editBetween(before: string, after: string): Edit {
  const most = Math.min(before.length, after.length);
  let start = 0;
  while (start < most && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let end = 0;
  while (
    end < most - start &&
    before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)
  )
    end++;
  const oldEnd = before.length - end;
  const newEnd = after.length - end;
  return {
    startIndex: start,
    oldEndIndex: oldEnd,
    newEndIndex: newEnd,
    startPosition: pointAt(after, start),
    oldEndPosition: pointAt(before, oldEnd),
    newEndPosition: pointAt(after, newEnd),
  };
}

function pointAt(text: string, index: number): Point {
  let row = 0;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) {
    row++;
    lineStart = at + 1;
  }
  return { row, column: index - lineStart };
}
