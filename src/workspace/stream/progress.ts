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

/** One operation's progress: report(phase, done) as often as convenient; it forwards at most every 100 ms. */
export class ProgressReporter {
  private readonly started = Date.now();
  private last = 0;
  private lastPhase: ProgressPhase | undefined;

  constructor(
    private readonly callback: ProgressCallback | undefined,
    private readonly path: string,
    private readonly total: number,
  ) {}

  report(phase: ProgressPhase, done: number, force = false): void {
    if (!this.callback) return;
    const now = Date.now();
    // The first event of a phase and its end always go out; in between, at most one per interval.
    if (!force && phase === this.lastPhase && now - this.last < MIN_INTERVAL_MS) return;
    this.last = now;
    this.lastPhase = phase;
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
