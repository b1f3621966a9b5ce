/**
 * What each turn changed, for /undo: the file tools' changes and the files a command changed. Both are in
 * editgate's history (a command's through the gate's settle, gate/settle.ts), so both are undone the same
 * way: through the gate (guard, root, stale check, audit line, after-change hooks, history stepping back).
 * /undo takes back the last turn with changes, newest change first; again, the turn before.
 */
export type LoggedChange =
  | { kind: 'tool'; absolute: string; relative: string; tool: string }
  | {
      kind: 'command';
      command: string;
      absolute: string;
      relative: string;
      /** Why /undo cannot put it back (it is not in history); absent when it can. */
      cannotUndo?: string;
    };

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
   * The model undid a change itself (undo_edit): the newest one in the file's history, a tool's or a
   * command's, is no longer there, so /undo must not count it. The newest logged change to the file goes.
   */
  forgetLatestChange(absolute: string): void {
    for (let t = this.turns.length - 1; t >= 0; t--) {
      const turn = this.turns[t]!;
      for (let i = turn.length - 1; i >= 0; i--) {
        const change = turn[i]!;
        if (change.absolute === absolute && !(change.kind === 'command' && change.cannotUndo)) {
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

  /**
   * Undoes the newest turn that changed something, each change through `undoThroughGate` (the newest entry
   * of the file's history). Undefined when there is none.
   */
  async undoLastTurn(
    undoThroughGate: (change: LoggedChange) => Promise<void>,
    onRestored: (change: LoggedChange) => void,
  ): Promise<UndoReport | undefined> {
    while (this.turns.length > 0) {
      const turn = this.turns.pop()!;
      if (this.current === turn) this.current = undefined;
      if (turn.length === 0) continue;
      const report: UndoReport = { restored: [], problems: [] };
      for (const change of [...turn].reverse()) {
        try {
          if (change.kind === 'command' && change.cannotUndo) throw new Error(change.cannotUndo);
          await undoThroughGate(change);
          report.restored.push(change.relative);
          onRestored(change);
        } catch (error) {
          report.problems.push(
            `${change.relative}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
      return report;
    }
    return undefined;
  }
}
