import { pathInRoot } from './root-named.js';

/** What a question about a change or a read is worded from (an ApprovalQuestion, gate/approval.ts). */
export interface QuestionSubject {
  tool: string;
  /** A read question's own words. */
  question?: string;
  files: readonly { path: string; root?: string; kind: 'create' | 'modify' | 'delete' | 'read' }[];
}

/** A question about reading a file rather than a change to it. */
export function isReadQuestion(question: Pick<QuestionSubject, 'files'>): boolean {
  return question.files[0]?.kind === 'read';
}

/** How a face shows what goes into the question: a path, and text that came from elsewhere. */
export interface QuestionMarkup {
  path(shown: string): string;
  text(words: string): string;
}

/**
 * The question a person answers, in the words every face uses (the terminal prompt, the chat's card, the
 * review page): one rule, so an undo is asked as an undo everywhere. `markup` makes a path or a read's own
 * words safe for the face (invisible characters marked in a terminal, HTML escaped on the page).
 */
export function approvalQuestion(subject: QuestionSubject, markup: QuestionMarkup): string {
  // A session review (gate/session-review.ts) asks its own question: keep these changes, or revert some.
  if (subject.tool === 'review_session' && subject.question) return markup.text(subject.question);
  if (subject.files.length > 1) {
    const paths = subject.files.map((file) => markup.path(pathInRoot(file.path, file.root))).join(', ');
    return `Apply this change to ${subject.files.length} files (${paths})?`;
  }
  const file = subject.files[0]!;
  const path = markup.path(pathInRoot(file.path, file.root));
  // An undo is a change like any other, but the person asked to undo: the question says so.
  if (subject.tool === 'undo_edit')
    return file.kind === 'delete'
      ? `Undo the last change to ${path} (it created the file, so it is deleted)?`
      : `Undo the last change to ${path}?`;
  switch (file.kind) {
    case 'create':
      return `Create ${path}?`;
    case 'delete':
      return `Delete ${path}?`;
    case 'read':
      return subject.question ? markup.text(subject.question) : `Allow reading ${path}?`;
    default:
      return `Apply this edit to ${path}?`;
  }
}

/**
 * A session review's choice in one line, the same on every face (the terminal walk's summary, the page's
 * answer): "a.txt: revert hunk 2 (why); keep 1, 3", hunks counted from 1; "Keep everything" when nothing is
 * reverted. `hunks` is a decision's HunkChoices (gate/approval.ts).
 */
export function sessionReviewSummary(
  request: { files: readonly { path: string; wholeOnly?: string }[] },
  hunks: { [path: string]: { accept: number[]; reject?: { hunk: number; reason?: string }[] } },
): string {
  const parts: string[] = [];
  for (const file of request.files) {
    const choice = hunks[file.path];
    const reverted = choice?.reject ?? [];
    if (reverted.length === 0) continue;
    const kept = choice?.accept ?? [];
    const said = reverted
      .map(({ hunk, reason }) => (reason ? `${hunk + 1} (${reason})` : `${hunk + 1}`))
      .join(', ');
    parts.push(
      `${file.path}: revert ${file.wholeOnly ? 'the whole file' : `hunk${reverted.length > 1 ? 's' : ''} ${said}`}${kept.length > 0 ? `; keep ${kept.map((hunk) => hunk + 1).join(', ')}` : ''}`,
    );
  }
  return parts.length > 0 ? parts.join(' · ') : 'Keep everything: nothing is reverted.';
}
