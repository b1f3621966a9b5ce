// CONTRACT STUB: owned by the core/diff helper, who replaces this file with the implementation.
import type { Eol } from './lines.js';

export interface DiffLine {
  kind: 'context' | 'add' | 'remove';
  /** 1-based line number in the old text (context and remove lines). */
  oldLine?: number;
  /** 1-based line number in the new text (context and add lines). */
  newLine?: number;
  /** The line without its terminator. */
  text: string;
  /** The line's terminator; '' for a last line without one. */
  eol: Eol | '';
}

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: DiffLine[];
}

export interface Diff {
  hunks: Hunk[];
  added: number;
  removed: number;
  identical: boolean;
}

export declare function diffLines(oldText: string, newText: string, options?: { context?: number }): Diff;

export declare function formatUnifiedDiff(diff: Diff, options: { oldPath: string; newPath: string }): string;
