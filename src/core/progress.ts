import { cancelledError } from './errors.js';

/**
 * Progress of long streamed work. Events are throttled here so a callback (a CLI bar, MCP progress
 * notifications) gets a steady trickle, not one call per chunk; `elapsedMs` lets a front end stay quiet for
 * work that finishes within about a second.
 */
export type ProgressPhase =
  /** Counting lines and checking the encoding of a file seen for the first time. */
  | 'index'
  /** Looking for old_string across the whole file. */
  | 'search'
  /** Writing the new content to the temp file. */
  | 'write'
  /** Reading lines for read_file. */
  | 'read';

export interface ProgressEvent {
  /** Workspace-relative path. */
  path: string;
  phase: ProgressPhase;
  /** Bytes of the file processed in this phase so far, and in all. */
  done: number;
  total: number;
  /** Since the operation started (all phases). */
  elapsedMs: number;
}

export type ProgressCallback = (event: ProgressEvent) => void;

const MIN_INTERVAL_MS = 100;

/**
 * One operation's progress: report(phase, done) as often as convenient; it forwards at most every 100 ms.
 * Every pass over a file reports per chunk, so this is also where a cancelled call stops: report() throws
 * CANCELLED once `signal` is aborted, and the pass gives up (its temp file removed, nothing written).
 */
export class ProgressReporter {
  private readonly started = Date.now();
  private last = 0;
  /** Where each phase has got to. */
  private readonly reached = new Map<ProgressPhase, number>();

  constructor(
    private readonly callback: ProgressCallback | undefined,
    private readonly path: string,
    private readonly total: number,
    private readonly signal?: AbortSignal,
  ) {}

  report(phase: ProgressPhase, done: number, force = false): void {
    if (this.signal?.aborted) throw cancelledError();
    if (!this.callback) return;
    const now = Date.now();
    // The first event of a phase (or of a phase that starts over: a second pass) and its end always go out;
    // in between, at most one per interval whatever the phase (an exact edit_file searches and writes
    // together: its events alternate between the two).
    const reached = this.reached.get(phase);
    this.reached.set(phase, done);
    const between = reached !== undefined && done >= reached && done < this.total;
    if (!force && between && now - this.last < MIN_INTERVAL_MS) return;
    this.last = now;
    try {
      this.callback({ path: this.path, phase, done, total: this.total, elapsedMs: now - this.started });
    } catch {
      // An observer that throws must not fail the edit.
    }
  }

  done(phase: ProgressPhase): void {
    this.report(phase, this.total, true);
  }
}

/** A call's progress as one figure that only grows, over every pass it makes over the file. */
export interface OverallProgress {
  path: string;
  /** What the current pass does; 'write' for a pass that searches as it writes (an exact edit_file). */
  phase: ProgressPhase;
  /** The current pass's own figures, for "writing a.sql: 512 MB of 1.0 GB". */
  passDone: number;
  passTotal: number;
  /** Bytes over all passes so far (never less than before), and that plus what this pass has left. */
  done: number;
  total: number;
  elapsedMs: number;
}

/**
 * Folds the phase events of one call into OverallProgress. Each phase counts its own bytes from 0: indexing
 * then writing is two passes of the whole file, so the figure for the call is the passes before plus the
 * current one (a front end that must show a growing number, like MCP progress, needs that). A phase that
 * follows another closely is the same pass (the writer right behind the search of an exact edit).
 */
export class ProgressPasses {
  private base = 0;
  private reach = 0;
  private path: string | undefined;
  private readonly positions = new Map<ProgressPhase, number>();

  update(event: ProgressEvent): OverallProgress {
    const { phase, done, total } = event;
    const previous = this.positions.get(phase);
    // A new pass: a phase starting again from an earlier place (exact found nothing, so the tolerant tiers
    // search and write again), or one that begins (or stands still) well behind the current pass (writing
    // after indexing). The writer of an exact edit stays within a chunk of its search: the same pass.
    const behind = done + total / 8 < this.reach;
    const again =
      event.path !== this.path ||
      (previous !== undefined && done < previous) ||
      (behind && (previous === undefined || done <= previous));
    if (again) {
      this.base += this.reach;
      this.reach = 0;
      this.positions.clear();
      this.path = event.path;
    }
    this.positions.set(phase, done);
    this.reach = Math.max(this.reach, done);
    const passTotal = Math.max(total, this.reach);
    return {
      path: event.path,
      phase: this.positions.has('write') ? 'write' : phase,
      passDone: this.reach,
      passTotal,
      done: this.base + this.reach,
      total: this.base + passTotal,
      elapsedMs: event.elapsedMs,
    };
  }
}

/** "writing", "searching": what a pass does, for messages. */
export function phaseVerb(phase: ProgressPhase): string {
  switch (phase) {
    case 'index':
      return 'indexing';
    case 'search':
      return 'searching';
    case 'write':
      return 'writing';
    default:
      return 'reading';
  }
}
