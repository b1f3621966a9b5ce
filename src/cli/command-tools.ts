import { isAbsolute, join, relative } from 'node:path';
import { type ApprovalQuestion, type Approver, approvalRequestFor, autoApprover } from '../gate/approval.js';
import { describeRule } from '../gate/describe-rule.js';
import { firstAnswer } from '../gate/first-answer.js';
import type { Screening } from '../gate/gate.js';
import type { Proposal } from '../gate/proposal.js';
import { denyWithoutTerminal } from '../terminal/no-terminal.js';
import { showPreview } from '../terminal/preview.js';
import { createProgressBar } from '../terminal/progress-bar.js';
import { createTerminalApprover } from '../terminal/prompt.js';
import type { TerminalOutput } from '../terminal/tty-modes.js';
import { CONFIG_FILE, loadConfig } from '../tools/config.js';
import { createEditTools, type EditTools } from '../tools/index.js';
import { stateDirFor } from '../tools/state-dir.js';
import { findPersonAtTerminal } from './person.js';
import { defaultStateDir } from './state-dir.js';
import { settleTrust } from './trust.js';
import type { GlobalOptions } from './usage.js';
import { openWebReview } from './web-review.js';

/**
 * The tools as a CLI command uses them: the root's config applied, approval asked at the terminal (or
 * given by --yes, or refused when no one can be asked), and every diff shown once, either with the
 * question or, when policy, a session grant or --yes approved it, with a note saying so.
 */
export interface CliSession {
  tools: EditTools;
  /** The config file in force, as the person would name it (relative to the current folder when inside
   * it); undefined when there is none. */
  configFile?: string;
  close(): void;
}

export interface CliSessionOptions {
  /** Standard input carries content or tool calls, so keys must come from /dev/tty. */
  stdinBusy: boolean;
  /** The command, as the web review page says who asks ("editgate edit"). */
  command?: string;
  /** The command makes one change and ends (edit, write, lines, undo): no session grants are offered. */
  oneChange?: boolean;
  /**
   * Whether an edit needs a read_file first. The direct commands (edit, lines) don't: the person typed the
   * text or the lines themselves. The file is still checked for changes between the diff and the write.
   */
  requireReadBeforeEdit?: boolean;
  /**
   * --dry-run: changes are computed, screened (hooks, policy) and shown, never written: the tools run in
   * preview mode, so no approval is asked and every change comes back staged.
   */
  dryRun?: boolean;
}

export async function openCliSession(
  globals: GlobalOptions,
  options: CliSessionOptions,
): Promise<CliSession> {
  const person = findPersonAtTerminal({ stdinBusy: options.stdinBusy });
  // No root may hold the state folder (trust records, journals; a config's stateDir is refused by
  // createEditTools): checked before anything is asked or recorded there.
  const userStateDir = stateDirFor([globals.root], defaultStateDir());
  // An untrusted config applies only where it tightens protection; a person at the terminal is asked once.
  const config = await settleTrust(
    await loadConfig(globals.root, globals.config),
    globals.root,
    globals.config,
    person,
  );
  // Diffs go to the person's terminal; without one, to standard output unless that carries JSON results.
  const previewOutput: TerminalOutput | undefined =
    person?.output ?? (globals.json ? undefined : process.stdout);
  const display = { noColor: globals.noColor, theme: globals.theme };

  const show = async (request: ApprovalQuestion, note: string) => {
    if (previewOutput) await showPreview(request, { ...display, output: previewOutput, note });
  };

  const configFile = config.path === undefined ? undefined : displayPath(config.path);
  const terminal = person
    ? createTerminalApprover({
        ...display,
        output: person.output,
        input: person.input,
        sessionGrants: !options.oneChange,
        notes: true,
        edits: true,
        // A single command's reason is printed for the person; `apply` may be run by an agent's harness.
        agentReadsReasons: !options.oneChange,
      })
    : undefined;
  // --approve web (or "approve": "web" in the config): the review page asks too; the first answer counts.
  // A dry run asks no one, so it opens no page.
  const web =
    !globals.yes && !options.dryRun && (globals.approve ?? config.config.approve) === 'web'
      ? await openWebReview(globals, options.command ?? 'editgate')
      : undefined;
  if (web) (person?.output ?? process.stderr).write(`${web.announcement.join('\n')}\n`);
  const approve: Approver = globals.yes
    ? // A change rule that asks is not answered by --yes: the person at the terminal is, when there is one.
      autoApprover('--yes', terminal ? { person: terminal } : {})
    : web
      ? firstAnswer([
          ...(terminal ? [{ where: 'in the terminal', ask: terminal }] : []),
          { where: 'in the browser', ask: web.ask },
        ])
      : (terminal ??
        denyWithoutTerminal(configFile ?? displayPath(join(globals.root, CONFIG_FILE)), process.stderr));

  // Streamed work on huge files (indexing, searching, writing) shows a bar on the terminal after a second.
  const progress = person ? createProgressBar(person.output, display) : undefined;

  const onPreview = async (proposal: Proposal, screening: Screening) => {
    progress?.done();
    const note = options.dryRun
      ? 'Dry run: this change is shown, not written.'
      : previewNote(screening, globals.yes, configFile);
    // Asked: the question shows the diff. Not askable: the refusal says why; the diff would only add noise.
    if (note) await show(approvalRequestFor(proposal), note);
  };

  const tools = createEditTools({
    ...config.options,
    root: globals.root,
    approve,
    onPreview,
    ...(progress ? { onProgress: progress.onProgress } : {}),
    stateDir: config.options.stateDir ?? userStateDir,
    // One command is one session, unless EDITGATE_SESSION names one that several commands share.
    sessionLog: {
      face: 'cli',
      label: options.command ?? 'editgate',
      ...(process.env.EDITGATE_SESSION ? { id: process.env.EDITGATE_SESSION } : {}),
    },
    ...(options.dryRun ? { mode: 'preview' as const } : {}),
    ...(globals.matching ? { matching: globals.matching } : {}),
    ...(options.requireReadBeforeEdit === undefined
      ? {}
      : { requireReadBeforeEdit: options.requireReadBeforeEdit }),
  });
  // The bar is erased when a call ends, before its result is printed.
  const execute: EditTools['execute'] = async (name, input) => {
    try {
      return await tools.execute(name, input);
    } finally {
      progress?.done();
    }
  };
  return {
    tools: { ...tools, execute },
    ...(configFile === undefined ? {} : { configFile }),
    close: () => {
      person?.close();
      // Stops serving the page now (its promise only tells when every connection is gone).
      void web?.close();
    },
  };
}

function previewNote(screening: Screening, yes: boolean, configFile: string | undefined): string | undefined {
  if (!screening.ask) {
    if (screening.approvedBy === 'user')
      return 'hunks' in screening
        ? 'Approved in part: the hunks you chose, as they are written.'
        : 'Approved with your own version: this is what is written.';
    if (screening.approvedBy === 'policy') {
      const rule = screening.rule ? ` ${describeRule(screening.rule)}` : '';
      return `Approved by the policy rule${rule} (${configFile ?? 'the config file'}).`;
    }
    return screening.grant === 'all'
      ? 'Approved by your answer earlier in this session (yes to every edit).'
      : 'Approved by your answer earlier in this session (yes to this file).';
  }
  // A change rule that asks past --yes puts the question to the person: it shows the diff.
  return yes && !screening.askedBy ? 'Approved by --yes.' : undefined;
}

/** A path as the person would type it: relative to the current folder when inside it. */
export function displayPath(path: string): string {
  const relativePath = relative(process.cwd(), path);
  return relativePath === '' || relativePath.startsWith('..') || isAbsolute(relativePath)
    ? path
    : relativePath;
}
