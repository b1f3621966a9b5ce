/**
 * The person's version of a file as one old-text/new-text replacement, for agents whose edit tool takes
 * that shape (Claude Code's Edit, Gemini CLI's replace, OpenCode's edit): the smallest run of whole lines
 * around what changed that occurs exactly once in the text the tool will read, so the tool's own search
 * finds it where the person meant, and nowhere else.
 */
import { commonPrefixLength, commonSuffixLength } from '../core/common-affix.js';
import type { RevisedFile } from './adapter.js';

export interface Replacement {
  old: string;
  new: string;
}

function occurrences(text: string, find: string): number {
  let count = 0;
  for (let at = text.indexOf(find); at !== -1 && count < 2; at = text.indexOf(find, at + 1)) count++;
  return count;
}

/** Undefined when `before` and `after` are the same, or `before` is empty (nothing to anchor on). */
export function uniqueReplacement(before: string, after: string): Replacement | undefined {
  if (before === after || before === '') return undefined;
  const prefix = commonPrefixLength(before, after);
  const suffix = commonSuffixLength(before, after, Math.min(before.length, after.length) - prefix);
  // Whole lines: back to the start of the line the change begins in, on to the end of the one it ends in.
  let start = before.lastIndexOf('\n', prefix - 1) + 1;
  let end = before.length - suffix;
  const endBreak = before.indexOf('\n', end);
  end = endBreak === -1 ? before.length : endBreak + 1;
  for (;;) {
    const old = before.slice(start, end);
    if (old !== '' && occurrences(before, old) === 1)
      return { old, new: after.slice(start, after.length - (before.length - end)) };
    if (start === 0 && end === before.length) return { old: before, new: after };
    // One more line on each side.
    if (start > 0) start = before.lastIndexOf('\n', start - 2) + 1;
    if (end < before.length) {
      const next = before.indexOf('\n', end);
      end = next === -1 ? before.length : next + 1;
    }
  }
}

/** The one file a revised call writes; these agents' edit tools write one, so more is a refusal. */
export function onlyRevisedFile(files: RevisedFile[]): RevisedFile | { refuse: string } {
  const file = files[0];
  if (!file || files.length > 1) return { refuse: 'the call writes one file' };
  return file;
}

/** A text with LF line ends, as these agents' edit tools read a file (they write its CRLF back themselves). */
export const lfText = (text: string) => text.replaceAll('\r\n', '\n');

/** The person's version of a file as one replacement in LF text, or the refusal saying why there is none. */
export function lfReplacement(file: RevisedFile): Replacement | { refuse: string } {
  return (
    uniqueReplacement(lfText(file.before), lfText(file.approved)) ?? {
      refuse: 'the file was empty, so there is no text to anchor an edit on',
    }
  );
}
