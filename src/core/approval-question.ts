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
