/**
 * The per-hunk walk (issue #30), as `git add -p` asks: one hunk at a time, y takes it, n skips it (the face
 * then reads an optional reason for the model), a takes it and every hunk left, d skips it and every hunk
 * left, q goes back to the question, ? says what the keys do. Its answer is the gate's `{ allow, hunks }`
 * Decision (gate/hunk-decision.ts checks and applies it).
 *
 * This holds the walk's rule and state only, no screen and no keyboard, so the terminal prompt, the chat's
 * card and the proxy's terminal question walk the same way; each face draws `current()` and reads keys
 * through its own typing guard (terminal/typing-guard.ts) before handing them to `press`.
 */
import type { ApprovalQuestion, HunkChoices, HunkDecision } from '../gate/approval.js';

/** The hunk being asked about: its file (path as in the request) and its place in the walk. */
export interface WalkPlace {
  path: string;
  /** Index into the file's `diff.hunks` (0-based, as the decision names it). */
  hunk: number;
  /** Hunks in this file. */
  hunks: number;
  /** 1-based position in the whole walk, and how many hunks the walk has. */
  step: number;
  steps: number;
}

/** What a key did: asked the next hunk, wants a reason for the hunk just skipped, finished, went back, or nothing. */
export type WalkEvent = 'next' | 'reason' | 'done' | 'back' | 'help' | 'ignored';

/** The key that opens the walk, the same on every terminal face (the card, the CLI prompt, the proxy's). */
export const WALK_KEY = 'h';

export const WALK_HELP = [
  'y - write this hunk',
  'n - do not write this hunk (then a reason for the agent, or Enter for none)',
  'a - write this hunk and every hunk left',
  'd - do not write this hunk nor any hunk left',
  'q - back to the question (nothing chosen is kept)',
  '? - this help',
];

/**
 * Why the walk is not offered for `request` (a sentence to show), or undefined when it is: a read question
 * has no hunks, files taken whole say why (ApprovalFile.wholeOnly), and one hunk in all is a plain y or n.
 */
export function walkUnavailable(request: ApprovalQuestion): string | undefined {
  const [first] = request.files;
  if (!first || first.kind === 'read') return 'a read has no hunks';
  const splittable = request.files.filter((file) => !file.wholeOnly);
  if (splittable.length === 0) return first.wholeOnly;
  const hunks = splittable.reduce((sum, file) => sum + file.diff.hunks.length, 0);
  if (hunks < 2) return 'this change has one hunk: answer y or n';
  return undefined;
}

/**
 * Whether a face offers the walk's key for `request`: a change with two hunks or more in all. Where its files
 * cannot be split (ApprovalFile.wholeOnly) the key is still offered, and says why (walkUnavailable), so a
 * person who wants part of the change learns why they cannot have it here.
 */
export function offersWalk(request: ApprovalQuestion): boolean {
  const hunks = request.files.reduce(
    (sum, file) => sum + (file.kind === 'read' ? 0 : file.diff.hunks.length),
    0,
  );
  return hunks >= 2;
}

/** One walk over a request's hunks (files taken whole are left out of it, and written whole if allowed). */
export class HunkWalk {
  private readonly places: Omit<WalkPlace, 'step' | 'steps'>[];
  private readonly chosen: ({ take: true } | { take: false; reason?: string })[] = [];

  constructor(private readonly request: ApprovalQuestion) {
    this.places = request.files.flatMap((file) =>
      file.wholeOnly || file.kind === 'read'
        ? []
        : file.diff.hunks.map((_, hunk) => ({ path: file.path, hunk, hunks: file.diff.hunks.length })),
    );
  }

  /** The hunk to ask about now; undefined once every hunk is chosen. */
  current(): WalkPlace | undefined {
    const place = this.places[this.chosen.length];
    return place && { ...place, step: this.chosen.length + 1, steps: this.places.length };
  }

  /** The hunk to ask about after this one (a face may draw it ahead, while the person reads this one). */
  upcoming(): WalkPlace | undefined {
    const step = this.chosen.length + 1;
    const place = this.places[step];
    return place && { ...place, step: step + 1, steps: this.places.length };
  }

  /** A key, already let through by the face's typing guard. */
  press(key: string): WalkEvent {
    if (key === '?') return 'help';
    if (key === 'q') return 'back';
    if (!this.current()) return 'ignored';
    switch (key) {
      case 'y':
        this.chosen.push({ take: true });
        break;
      case 'n':
        this.chosen.push({ take: false });
        return 'reason';
      case 'a':
      case 'd':
        while (this.chosen.length < this.places.length)
          this.chosen.push(key === 'a' ? { take: true } : { take: false });
        break;
      default:
        return 'ignored';
    }
    return this.current() ? 'next' : 'done';
  }

  /** The reason for the hunk just skipped with n ('' for none); then the walk goes on. */
  reason(text: string): WalkEvent {
    const last = this.chosen.at(-1);
    if (last && !last.take && text.trim()) last.reason = text.trim();
    return this.current() ? 'next' : 'done';
  }

  /** The decision the walk chose (call when `current()` is undefined): files taken whole are left out. */
  decision(): HunkDecision {
    const hunks: HunkChoices = {};
    this.places.forEach((place, index) => {
      const choice = this.chosen[index]!;
      const file = (hunks[place.path] ??= { accept: [], reject: [] });
      if (choice.take) file.accept.push(place.hunk);
      else
        file.reject!.push(choice.reason ? { hunk: place.hunk, reason: choice.reason } : { hunk: place.hunk });
    });
    return { allow: 'once', hunks };
  }

  /** One line of what will be written, hunks counted from 1 as people count: "a.txt: write hunks 1, 3; not 2 (why)". */
  summary(): string {
    const parts: string[] = [];
    for (const [path, { accept, reject = [] }] of Object.entries(this.decision().hunks)) {
      const taken =
        accept.length === 0
          ? 'none'
          : `hunk${accept.length > 1 ? 's' : ''} ${accept.map((h) => h + 1).join(', ')}`;
      const skipped = reject
        .map(({ hunk, reason }) => (reason ? `${hunk + 1} (${reason})` : `${hunk + 1}`))
        .join(', ');
      parts.push(`${path}: write ${taken}${skipped ? `; not ${skipped}` : ''}`);
    }
    // Files the walk left out are written whole if the answer allows (a change set's large file, say).
    for (const file of this.request.files)
      if (file.wholeOnly && file.kind !== 'read') parts.push(`${file.path}: whole (${file.wholeOnly})`);
    return parts.join(' · ');
  }
}
