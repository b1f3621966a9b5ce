import { EditgateError } from '../../core/errors.js';
import { findingsLines } from '../../core/finding-words.js';
import { pathInRoot } from '../../core/root-named.js';
import { type ApprovalQuestion, approvalRequestFor } from '../../gate/approval.js';
import type { Proposal } from '../../gate/proposal.js';
import { toCells, visibleText } from '../../terminal/cells.js';
import { type ColorLevel, detectColorLevel } from '../../terminal/colors.js';
import { denyWithoutTerminal } from '../../terminal/no-terminal.js';
import { paletteFor, resolveTheme, type ThemeOption } from '../../terminal/palette.js';
import { highlighterFor, renderRequestDiff, requestUnifiedText } from '../../terminal/preview.js';
import type { TerminalOutput } from '../../terminal/tty-modes.js';
import type { TurnEvents, TurnOutcome } from '../loop/turn.js';
import type { ChatSession, PreviewReason, SessionFrontEnd } from '../session/chat-session.js';
import type { FileChange } from '../tools/file-changes.js';
import { sanitizeOutput } from '../ui/sanitize.js';
import { type Look, noteLines, outcomeLine, toolLine } from '../ui/transcript.js';
import { changeOutcome } from './call-state.js';
import { changeDiffLines } from './change-diff.js';

/**
 * `editgate chat -p "TASK"`: one turn without the REPL, for scripts. No one is asked anything: a change or a
 * command runs only when --yes or a policy rule allows it, and is refused otherwise (the model reads why).
 * The reply goes to standard output; tool lines and diffs to standard error. With --json, standard output
 * carries one JSON object per event instead.
 */
export interface OneShotOptions {
  json: boolean;
  stdout: TerminalOutput;
  stderr: TerminalOutput;
  noColor?: boolean;
  theme?: ThemeOption;
}

export const NO_PERSON_COMMAND =
  'editgate chat -p runs without a person to ask, so the command was not run. To allow it, run with --yes, or add a policy rule in editgate.config.json such as {"tool": "bash", "path": "npm test", "action": "allow"}.';

export class OneShot implements SessionFrontEnd {
  private readonly level: ColorLevel;
  private readonly palette;
  private reasons = new Map<string, PreviewReason>();
  denied = false;

  constructor(private readonly options: OneShotOptions) {
    this.level = options.noColor ? 0 : detectColorLevel({ isTTY: options.stderr.isTTY === true });
    this.palette = paletteFor(resolveTheme(options.theme));
  }

  private look(): Look {
    return {
      width: Math.max(20, this.options.stderr.columns ?? 100),
      level: this.level,
      palette: this.palette,
    };
  }

  private event(value: Record<string, unknown>): void {
    this.options.stdout.write(`${JSON.stringify(value)}\n`);
  }

  private progress(lines: string[]): void {
    if (!this.options.json) this.options.stderr.write(lines.map((line) => `${line}\n`).join(''));
  }

  async preview(proposal: Proposal, reason: PreviewReason): Promise<void> {
    const request: ApprovalQuestion = approvalRequestFor(proposal);
    const first = request.files[0]!;
    for (const file of request.files) this.reasons.set(file.path, reason);
    if (this.options.json) {
      this.event({
        type: 'change',
        tool: proposal.tool,
        path: first.path,
        ...(first.root !== undefined && { root: first.root }),
        kind: proposal.files[0]!.kind,
        approvedBy: reason === 'ask' ? null : reason,
        // The request's diff: a secret a check found is masked in it (gate/secret-check.ts).
        diff: requestUnifiedText(request),
        ...(request.findings && { findings: request.findings }),
      });
      return;
    }
    const look = this.look();
    if (this.options.stderr.isTTY) {
      const display = {
        level: this.level,
        theme: this.palette.theme,
        width: look.width,
        height: 24,
        tabWidth: 4,
      };
      this.progress([
        toolLine(proposal.tool, pathInRoot(first.path, first.root), undefined, look),
        ...renderRequestDiff(request, display, look.width, await highlighterFor(request, display)),
      ]);
    } else {
      this.progress([
        toolLine(proposal.tool, pathInRoot(first.path, first.root), undefined, look),
        requestUnifiedText(request).replace(/\n$/, ''),
      ]);
    }
    const found = findingsLines(request.findings);
    if (found.length > 0) this.progress(found.map((line) => visibleText(line)));
  }

  /** No one is asked: the refusal is DENIED_NO_APPROVER (no one said no), in the CLI's words. The diff was
   * already shown on standard error by preview. */
  private readonly noOneToAsk = denyWithoutTerminal(undefined, undefined, 'editgate chat -p');

  approve: SessionFrontEnd['approve'] = (request, context) => {
    this.denied = true;
    return this.noOneToAsk(request, context);
  };

  async askCommand(): Promise<never> {
    this.denied = true;
    throw new EditgateError('DENIED_NO_APPROVER', NO_PERSON_COMMAND, { reason: 'no-terminal' });
  }

  commandChanged(changes: FileChange[], command: string): void {
    if (this.options.json) {
      for (const change of changes)
        this.event({
          type: 'command-change',
          command,
          path: change.relative,
          created: change.before === null,
          deleted: change.after === null,
        });
      return;
    }
    for (const change of changes) this.progress(changeDiffLines(change, this.look(), this.palette));
  }

  events(): TurnEvents {
    return {
      textDelta: (text) => {
        if (this.options.json) this.event({ type: 'text', text });
        else this.options.stdout.write(printable(text));
      },
      toolStarted: () => {},
      toolFinished: (call, result) => {
        const target = call.tool ? call.tool.target(call.input) : '';
        if (this.options.json) {
          this.event({
            type: 'tool',
            name: call.name,
            input: call.input,
            ok: result.ok,
            code: result.code ?? null,
            summary: result.summary,
          });
          return;
        }
        const look = this.look();
        if (call.tool?.changes && call.name !== 'bash' && this.reasons.has(target)) {
          this.progress(
            outcomeLine(result.ok, changeOutcome(result, { reason: this.reasons.get(target) }), look),
          );
        } else this.progress([toolLine(call.name, target, result.summary, look, !result.ok)]);
      },
      usage: () => {},
      warning: (text) => {
        if (this.options.json) this.event({ type: 'warning', message: text });
        else this.progress(noteLines(text, this.look(), 'warning'));
      },
      message: () => {},
    };
  }

  /** Runs the task; the exit code: 0 done, 1 the model or server failed, 3 something needed approval. */
  async run(session: ChatSession, task: string): Promise<number> {
    const abort = new AbortController();
    const onSignal = () => abort.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    let outcome: TurnOutcome;
    try {
      outcome = await session.turn(task, this.events(), abort.signal, () => false);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    if (!this.options.json) this.options.stdout.write('\n');
    const code =
      outcome.status === 'failed' ? 1 : outcome.status === 'interrupted' ? 130 : this.denied ? 3 : 0;
    if (this.options.json) {
      this.event({
        type: 'done',
        status: outcome.status,
        error: outcome.error ?? null,
        usage: session.usage,
        exitCode: code,
      });
    } else if (outcome.error)
      this.progress(noteLines(outcome.error, this.look(), outcome.status === 'failed' ? 'error' : 'warning'));
    await session.settle();
    return code;
  }
}

/** Model text for a terminal or a file: escape sequences removed, other control characters made visible. */
function printable(text: string): string {
  return sanitizeOutput(text)
    .split('\n')
    .map((line) =>
      toCells(line)
        .map((cell) => cell.text)
        .join(''),
    )
    .join('\n');
}
