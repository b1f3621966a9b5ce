import { EditgateError } from '../../core/errors.js';
import { commitChange } from '../../workspace/commit.js';
import { sha256 } from '../../workspace/fingerprint.js';
import type { FileChange } from '../tools/file-changes.js';

/**
 * What each turn changed, for /undo: the file tools' changes (undone through editgate's history, which
 * checks the file is still as editgate left it) and the files a command changed (their bytes from before
 * the command, put back with editgate's atomic write, on the same condition). /undo takes back the last
 * turn with changes, newest change first; again, the turn before.
 */
export type LoggedChange =
  | { kind: 'tool'; absolute: string; relative: string; tool: string }
  | { kind: 'command'; command: string; file: FileChange };

export interface UndoReport {
  /** Files put back, newest change first. */
  restored: string[];
  /** Changes that could not be undone, each with why. */
  problems: string[];
}

export class ChangeLog {
  private readonly turns: LoggedChange[][] = [];
  private current: LoggedChange[] | undefined;

  beginTurn(): void {
    this.current = [];
    this.turns.push(this.current);
  }

  record(change: LoggedChange): void {
    if (!this.current) this.beginTurn();
    this.current!.push(change);
  }

  /**
   * The model undid one of its changes itself (undo_edit): that change is no longer in the history, so
   * /undo must not count it. The newest logged change to the file goes.
   */
  forgetLatestToolChange(absolute: string): void {
    for (let t = this.turns.length - 1; t >= 0; t--) {
      const turn = this.turns[t]!;
      for (let i = turn.length - 1; i >= 0; i--) {
        const change = turn[i]!;
        if (change.kind === 'tool' && change.absolute === absolute) {
          turn.splice(i, 1);
          return;
        }
      }
    }
  }

  /** Changes in turns that /undo can still take back. */
  get pendingTurns(): number {
    return this.turns.filter((turn) => turn.length > 0).length;
  }

  /** Undoes the newest turn that changed something. Undefined when there is none. */
  async undoLastTurn(
    undoToolChange: (change: Extract<LoggedChange, { kind: 'tool' }>) => Promise<void>,
    onRestored: (change: LoggedChange) => void,
  ): Promise<UndoReport | undefined> {
    while (this.turns.length > 0) {
      const turn = this.turns.pop()!;
      if (this.current === turn) this.current = undefined;
      if (turn.length === 0) continue;
      const report: UndoReport = { restored: [], problems: [] };
      for (const change of [...turn].reverse()) {
        const name = change.kind === 'tool' ? change.relative : change.file.relative;
        try {
          if (change.kind === 'tool') await undoToolChange(change);
          else await restoreCommandChange(change.file);
          report.restored.push(name);
          onRestored(change);
        } catch (error) {
          report.problems.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      return report;
    }
    return undefined;
  }
}

/** Puts a file a command changed back as it was before the command, if it is still as the command left it. */
async function restoreCommandChange(change: FileChange): Promise<void> {
  const { absolute, relative: display, before, after } = change;
  if (before === undefined || after === undefined) {
    throw new EditgateError(
      'TOO_LARGE',
      'too large to have been kept before the command; restore it from version control.',
    );
  }
  const fingerprint = after === null ? null : { size: after.length, mtimeMs: 0, hash: sha256(after) };
  const base = { path: absolute, exists: after !== null, fingerprint, display };
  await commitChange(base, before === null ? { type: 'delete' } : { type: 'bytes', bytes: before });
}
