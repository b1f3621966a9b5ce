/**
 * What the per-hunk walk (hunk-walk.ts) shows, in words and lines every terminal face uses the same way: the
 * hunk asked about (its diff alone, under its file's header), the question with its keys, and at the end the
 * one line of what will be written with the keys that confirm it. The faces lay the keys out (choiceRows) and
 * read them through their typing guard.
 */
import type { LineHighlighter } from '../core/highlight.js';
import { pathInRoot } from '../core/root-named.js';
import type { ApprovalQuestion } from '../gate/approval.js';
import { visibleText } from './cells.js';
import { renderDiff } from './diff-view.js';
import type { Display } from './display.js';
import type { HunkWalk, WalkPlace } from './hunk-walk.js';
import type { Choice } from './prompt.js';

/** The keys under a hunk (hunk-walk.ts's WALK_HELP says each in full on `?`). */
export const WALK_CHOICES: readonly Choice[] = [
  { key: 'y', label: 'write this hunk' },
  { key: 'n', label: 'not this one' },
  { key: 'a', label: 'this and all left' },
  { key: 'd', label: 'none left' },
  { key: 'q', label: 'back to the question' },
  { key: '?', label: 'help' },
];

/** The keys under the summary line, once every hunk is chosen. */
export const WALK_CONFIRM_CHOICES: readonly Choice[] = [
  { key: 'y', label: 'yes, write that' },
  { key: 'n', label: 'no, back to the question' },
];

/** Where the reason for a skipped hunk is typed (Enter with nothing: no reason). */
export const WALK_REASON_LABEL = 'Why not this hunk? (for the agent; Enter for no reason): ';

/** The file of a walk's place (paths are unique in a request the walk can split: checkHunkChoices). */
function fileAt(request: ApprovalQuestion, place: WalkPlace) {
  return request.files.find((file) => file.path === place.path)!;
}

/** `Write hunk 2 of 3 of src/a.ts? (2 of 5 in all)`: the hunk's file named as the person knows it. */
export function walkQuestion(request: ApprovalQuestion, place: WalkPlace): string {
  const file = fileAt(request, place);
  const where = visibleText(pathInRoot(file.path, file.root));
  const inAll = place.steps === place.hunks ? '' : ` (${place.step} of ${place.steps} in all)`;
  return `Write hunk ${place.hunk + 1} of ${place.hunks} of ${where}?${inAll}`;
}

/** The hunk asked about: its file's header and its own lines, nothing else of the diff. */
export function walkHunkDiff(
  request: ApprovalQuestion,
  place: WalkPlace,
  display: Display,
  width: number,
  highlighter?: LineHighlighter,
): string[] {
  const file = fileAt(request, place);
  const hunk = file.diff.hunks[place.hunk]!;
  const count = (kind: 'add' | 'remove') => hunk.lines.filter((line) => line.kind === kind).length;
  const kind = file.kind === 'read' ? 'modify' : file.kind;
  return renderDiff(
    {
      path: pathInRoot(file.path, file.root),
      kind,
      diff: { hunks: [hunk], added: count('add'), removed: count('remove'), identical: false },
    },
    {
      width,
      color: display.level,
      theme: display.theme,
      tabWidth: display.tabWidth,
      ...(highlighter ? { highlighter } : {}),
    },
  );
}

/** The one line of what will be written, once every hunk is chosen. */
export function walkConfirmQuestion(walk: HunkWalk): string {
  return `Will write: ${visibleText(walk.summary())}. Write it?`;
}
