/**
 * Applying a patch's hunks (patch.ts) to a file's text, by the rule that makes edit_file never wrong: a
 * hunk's context and removed lines must locate exactly one place. They are matched as whole lines with
 * edit_file's own matcher (match.ts: exact, then each tolerant tier in order; the first tier that finds
 * any place decides, and finding several is a refusal, never "take the first"), and only in the part of
 * the file a hunk may refer to: after the hunk before it (hunks come in file order), and below the line
 * each of its @@ lines names. A hunk marked `*** End of File` must end the file. Any hunk that does not
 * locate exactly one place refuses the whole patch, naming the file, the hunk and what was found.
 *
 * Line endings and the lack of a final line break are kept, as every edit keeps them: new lines take the
 * file's line ending, and a file without a final newline still has none after a hunk that ends it.
 */
import { findClosest } from './closest.js';
import { EditgateError } from './errors.js';
import { adoptLineEnding, countNewlines, lineNumberAt } from './lines.js';
import { findInView, type MatchTier } from './match.js';
import { chooseEol, type NeutralView, neutralView } from './neutral.js';
import type { PatchHunk } from './patch.js';
import { foldTypography, lineContent } from './tolerant.js';

export interface HunkTarget {
  /** The file as people and models see it, for messages. */
  path: string;
  /** 'exact' turns the tolerant tiers off, as it does for edit_file. */
  matching: 'exact' | 'tolerant';
}

export interface AppliedHunks {
  text: string;
  /** The tier each hunk matched at (pure additions at the end of the file: 'exact'). */
  tiers: MatchTier[];
}

/** A located hunk: view offsets [start, end) replaced by `inserted` ("\n" line breaks). */
interface Placed {
  start: number;
  end: number;
  inserted: string;
  /** The hunk's last line is a removed one. */
  endsRemoving: boolean;
}

/** The text with every hunk applied in order; throws (NOT_FOUND, AMBIGUOUS) and changes nothing otherwise. */
export function applyHunks(text: string, hunks: readonly PatchHunk[], target: HunkTarget): AppliedHunks {
  // A file without a final line break gets one while the hunks are matched (a hunk's lines are whole
  // lines), and loses it again afterwards.
  const plain = neutralView(text);
  const open = text !== '' && !plain.text.endsWith('\n');
  const working = open ? text + plain.eol().dominant : text;
  const view = open ? neutralView(working) : plain;

  const placed: Placed[] = [];
  const tiers: MatchTier[] = [];
  let after = 0; // view offset where the next hunk's region starts
  hunks.forEach((hunk, index) => {
    const where = new HunkPlace(view, hunk, index, hunks.length, target, after);
    const from = where.regionStart();
    const old = linesOf(hunk, '-');
    const inserted = linesOf(hunk, '+');
    if (old === '') {
      // Only added lines: they go at the end of the file, as the format has it, unless an @@ line says
      // they belong somewhere else (with nothing to anchor them, that place cannot be known).
      if (hunk.anchors.length > 0 && !hunk.endOfFile) throw where.unplaceable();
      const end = view.text.length;
      placed.push({ start: end, end, inserted, endsRemoving: false });
      tiers.push('exact');
      after = end;
      return;
    }
    const found = findInView(view, old, {
      matching: target.matching,
      accept: (start, end) =>
        start >= from &&
        (start === 0 || view.text.charCodeAt(start - 1) === 10) &&
        (!hunk.endOfFile || end === view.text.length),
    });
    if (!found) throw where.notFound(old, from);
    if (found.ranges.length > 1) throw where.ambiguous(found.tier, found.ranges);
    const [start, end] = found.ranges[0]!;
    placed.push({
      start,
      end,
      inserted: found.rewrite(inserted, 0),
      endsRemoving: hunk.lines.at(-1)!.kind === '-',
    });
    tiers.push(found.tier);
    after = end;
  });

  const pieces: string[] = [];
  let copiedTo = 0;
  for (const { start, end, inserted } of placed) {
    const from = view.toOriginal(start);
    const to = view.toOriginal(end);
    pieces.push(
      working.slice(copiedTo, from),
      adoptLineEnding(inserted, chooseEol(working, from, to, view.eol())),
    );
    copiedTo = to;
  }
  pieces.push(working.slice(copiedTo));
  let result = pieces.join('');
  if (open) {
    // The line break added above, or the one ending the new last line in its place; but when a hunk
    // removed the last line, the line now last keeps the break it always had.
    const last = placed.at(-1);
    const removedLast = last !== undefined && last.end === view.text.length && last.endsRemoving;
    if (!removedLast) result = result.replace(/(?:\r\n|\n|\r)$/, '');
  }
  return { text: result, tiers };
}

/** The hunk's old text (context and "-" lines) or new text (context and "+" lines), whole lines. */
function linesOf(hunk: PatchHunk, side: '-' | '+'): string {
  let text = '';
  for (const line of hunk.lines) if (line.kind === ' ' || line.kind === side) text += `${line.text}\n`;
  return text;
}

/** Where one hunk may apply, and the words of its refusals. */
class HunkPlace {
  constructor(
    private readonly view: NeutralView,
    private readonly hunk: PatchHunk,
    private readonly index: number,
    private readonly count: number,
    private readonly target: HunkTarget,
    private readonly after: number,
  ) {}

  /** View offset from which the hunk may match: after the hunk before, below each @@ line in turn. */
  regionStart(): number {
    const lines = this.view.lines();
    const starts = this.view.lineStarts();
    let line = this.after === 0 ? 0 : lineNumberAt(starts, this.after) - 1;
    if (line < starts.length && starts[line]! < this.after) line++;
    for (const anchor of this.hunk.anchors) {
      const wanted = foldTypography(lineContent(anchor));
      let found = -1;
      for (let i = line; i < lines.length; i++) {
        const content = foldTypography(lineContent(lines[i]!));
        if (content === wanted || (wanted !== '' && content.startsWith(wanted))) {
          found = i;
          break;
        }
      }
      if (found === -1) throw this.anchorMissing(anchor);
      line = found + 1;
    }
    return line < starts.length ? starts[line]! : this.view.text.length;
  }

  /** "src/app.ts, hunk 2 of 3 (patch line 14)". */
  private name(): string {
    const which = this.count > 1 ? `hunk ${this.index + 1} of ${this.count}` : 'its hunk';
    return `${this.target.path}, ${which} (patch line ${this.hunk.line})`;
  }

  private region(): string {
    const parts: string[] = [];
    if (this.index > 0) parts.push(`after hunk ${this.index}`);
    if (this.hunk.anchors.length > 0)
      parts.push(`below ${this.hunk.anchors.map((anchor) => JSON.stringify(anchor)).join(', then ')}`);
    if (this.hunk.endOfFile) parts.push('at the end of the file');
    return parts.length > 0 ? ` ${parts.join(', ')}` : '';
  }

  private details(extra: Record<string, unknown>): Record<string, unknown> {
    return { path: this.target.path, hunk: this.index + 1, patchLine: this.hunk.line, ...extra };
  }

  anchorMissing(anchor: string): EditgateError {
    const after = this.index > 0 ? ` after hunk ${this.index}` : '';
    return new EditgateError(
      'NOT_FOUND',
      `${this.name()}: its @@ line ${JSON.stringify(anchor)} names no line of the file${after}. An @@ line must repeat a line of the file (a class or function line above the change). Read the file again and fix the patch. Nothing was changed: a patch applies whole or not at all.`,
      this.details({ anchor }),
    );
  }

  unplaceable(): EditgateError {
    return new EditgateError(
      'INVALID_INPUT',
      `${this.name()}: the hunk only adds lines, so nothing in it says where they go. Add the line(s) before them as context lines (starting with a space), or end the hunk with "*** End of File" to add them at the end of the file. Nothing was changed.`,
      this.details({}),
    );
  }

  notFound(old: string, from: number): EditgateError {
    const tried =
      this.target.matching === 'exact'
        ? 'exactly'
        : 'even with trailing whitespace, indentation, typographic punctuation, line-number prefixes or escaping tolerated';
    // The closest region is looked for in the part of the file the hunk may refer to.
    const view = this.view;
    const offset = from;
    const sub = neutralView(view.text.slice(offset));
    const closest = findClosest(sub.text, sub.lines(), sub.lineStarts(), old);
    const firstLine = countNewlines(view.text, 0, offset);
    let hint: string;
    if (closest) {
      const shift = (line: number) => line + firstLine;
      const span =
        closest.startLine === closest.endLine
          ? `line ${shift(closest.startLine)}`
          : `lines ${shift(closest.startLine)}-${shift(closest.endLine)}`;
      const excerpt = closest.excerpt.replace(
        /^( *)(\d+)\t/gm,
        (_all, pad: string, n: string) => `${String(shift(Number(n))).padStart(pad.length + n.length)}\t`,
      );
      const difference = closest.whitespaceOnly ? '; it differs only in whitespace' : '';
      hint = ` The closest text is at ${span} (similarity ${closest.similarity}${difference}):\n${excerpt}\n`;
      closest.startLine = shift(closest.startLine);
      closest.endLine = shift(closest.endLine);
    } else {
      hint = ' Nothing there resembles them; the file may have changed, or this may be the wrong file. ';
    }
    return new EditgateError(
      'NOT_FOUND',
      `${this.name()}: its context and removed lines were not found${this.region()}, ${tried}.${hint}Read the file again and copy the context and "-" lines exactly from it. Nothing was changed: a patch applies whole or not at all.`,
      this.details({ matching: this.target.matching, closest }),
    );
  }

  ambiguous(tier: MatchTier, ranges: readonly [number, number][]): EditgateError {
    const starts = this.view.lineStarts();
    const lines = ranges.map(([start]) => lineNumberAt(starts, start));
    const how = tier === 'exact' ? '' : ` (not exactly: they match with ${tier} tolerated)`;
    return new EditgateError(
      'AMBIGUOUS',
      `${this.name()}: its context and removed lines match ${ranges.length} places${this.region()}${how}, at lines ${formatList(lines)}, but a hunk must match exactly one. Add context lines, or an @@ line naming the class or function, so it matches only the place you mean. Nothing was changed: a patch applies whole or not at all.`,
      this.details({ count: ranges.length, lines, tier }),
    );
  }
}

function formatList(numbers: readonly number[]): string {
  const shown = numbers.slice(0, 20).map(String);
  const more = numbers.length > shown.length ? ` and ${numbers.length - shown.length} more` : '';
  if (shown.length === 1) return shown[0]!;
  return more ? `${shown.join(', ')}${more}` : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}
