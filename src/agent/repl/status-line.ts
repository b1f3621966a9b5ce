import { type ColorLevel, paint } from '../../terminal/colors.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * The chat's status line, one dim row above the input: idle (model, tokens, the keys to know) or busy (a
 * spinner, what the model is doing, for how long, and how to interrupt). Changing it asks for a frame
 * through `redraw`; while busy the spinner asks for one every 100 ms.
 */
export class StatusLine {
  mode: 'idle' | 'busy' = 'idle';
  /** What the model is doing now ("Thinking", "edit_file src/a.ts"). */
  activity = '';
  modelLabel: string;
  usage = { input: 0, output: 0 };
  /** Ctrl-C was pressed once at an empty input: the line says a second one exits. */
  exitHint = false;
  private startedAt = 0;
  private spinnerTimer: NodeJS.Timeout | undefined;

  constructor(
    modelLabel: string,
    private readonly redraw: () => void,
  ) {
    this.modelLabel = modelLabel;
  }

  busy(activity: string): void {
    this.mode = 'busy';
    this.activity = activity;
    this.startedAt = performance.now();
    this.spinnerTimer ??= setInterval(this.redraw, 100);
    this.redraw();
  }

  idle(): void {
    this.mode = 'idle';
    this.activity = '';
    this.stopSpinner();
    this.redraw();
  }

  stopSpinner(): void {
    if (this.spinnerTimer) clearInterval(this.spinnerTimer);
    this.spinnerTimer = undefined;
  }

  render(width: number, level: ColorLevel): string {
    const tokens =
      this.usage.input + this.usage.output > 0
        ? ` · ↑${compact(this.usage.input)} ↓${compact(this.usage.output)}`
        : '';
    let text: string;
    if (this.mode === 'busy') {
      const seconds = Math.floor((performance.now() - this.startedAt) / 1000);
      const frame = SPINNER[Math.floor(performance.now() / 100) % SPINNER.length];
      text = `${frame} ${this.activity} ${seconds}s · ${this.modelLabel}${tokens} · esc to interrupt`;
    } else if (this.exitHint) text = 'Press Ctrl-C again to exit';
    else text = `${this.modelLabel}${tokens} · /help · Ctrl-J new line · Ctrl-D exit`;
    return paint(text.length > width - 1 ? `${text.slice(0, width - 2)}…` : text, { dim: true }, level);
  }
}

function compact(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}
