// `editgate review --session [ID|last]`: one session's changes, after the fact, as one change set: keep or
// revert each hunk, with a reason for the agent (gate/session-review.ts). `--session` alone or `--list`
// lists the sessions that changed files under ROOT.
import { realpath } from 'node:fs/promises';
import { sep } from 'node:path';
import { parseArgs } from 'node:util';
import { isEditgateError } from '../../core/errors.js';
import type { Decision } from '../../gate/approval.js';
import { openGate } from '../../gate/open-gate.js';
import { applySessionReview, openSessionReview, reviewSummary } from '../../gate/session-review.js';
import { visibleText } from '../../terminal/cells.js';
import type { ThemeOption } from '../../terminal/palette.js';
import { walkSessionReview } from '../../terminal/session-walk.js';
import { loadConfig } from '../../tools/config.js';
import { stateDirFor } from '../../tools/state-dir.js';
import { findSession, type LoggedSession, listSessions } from '../../workspace/session-log.js';
import { findPersonAtTerminal } from '../person.js';
import { defaultStateDir } from '../state-dir.js';
import { openWebReview } from '../web-review.js';

export const SESSION_USAGE = `       editgate review [ROOT] --session [ID|last] [--approve web] [--open]
       editgate review [ROOT] --session --list`;

export const SESSION_HELP = `Review a session afterwards (an agent's run that was approved by --yes or a policy rule, a chat, an MCP
connection, a proxy, a hooked agent): every file it changed under ROOT, from before its first change to
what it left, as one change set. Keep or revert each hunk, with a reason the agent reads (the chat's next
turn, the MCP server's next result). In a terminal the hunks are walked one by one (y keep, n revert, v the
whole change set in the pager); with --approve web they are shown on the review page, one checkbox a hunk.
A revert is a change like any other: written only while the file is still what the session left,
audited, and undone with editgate undo FILE. Nothing is read from or written to git.

Session review options:
  --session ID  the session to review ("last": the most recent one with changes under ROOT)
  --session, --list
                list the sessions with changes under ROOT: id, what ran it, when, files and changes
  --approve web review on the web page instead of the terminal (--open opens it)`;

interface SessionOptions {
  session?: string;
  list?: boolean;
  approve?: string;
  open?: boolean;
  'no-color'?: boolean;
  theme?: string;
  json?: boolean;
  help?: boolean;
}

/** Whether the command line asks for a session review (review.ts hands it over here). */
export function asksForSession(args: readonly string[]): boolean {
  return args.some((arg) => arg === '--session' || arg.startsWith('--session=') || arg === '--list');
}

export async function runSessionReview(args: string[]): Promise<number> {
  let values: SessionOptions;
  let positionals: string[];
  try {
    // `--session` alone (last, or before another option) lists, as --list does.
    const given = args.flatMap((arg, i) =>
      arg === '--session' && (args[i + 1] === undefined || args[i + 1]!.startsWith('-')) ? ['--list'] : [arg],
    );
    ({ values, positionals } = parseArgs({
      args: given,
      allowPositionals: true,
      options: {
        session: { type: 'string' },
        list: { type: 'boolean' },
        approve: { type: 'string' },
        open: { type: 'boolean' },
        'no-color': { type: 'boolean' },
        theme: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
    if (positionals.length > 1) throw new Error(`one ROOT at a time (got ${positionals.join(', ')})`);
    if (values.approve !== undefined && values.approve !== 'web' && values.approve !== 'terminal')
      throw new Error(`--approve takes web or terminal (got "${values.approve}")`);
    if (values.session !== undefined && values.session.trim() === '')
      throw new Error('--session needs a session id, or last (editgate review --session --list shows them)');
  } catch (error) {
    process.stderr.write(
      `editgate review: ${(error as Error).message}. Run editgate review --help for its options.\n`,
    );
    return 2;
  }
  let root: string;
  try {
    root = await realpath(positionals[0] ?? process.cwd());
  } catch {
    process.stderr.write(`editgate review: ${positionals[0]} is not an existing folder.\n`);
    return 2;
  }
  const userStateDir = defaultStateDir();
  let stateDir: string;
  let config: Awaited<ReturnType<typeof loadConfig>>;
  try {
    config = await loadConfig(root, undefined, { stateDir: userStateDir });
    stateDir = stateDirFor([root], userStateDir, config.options.stateDir);
  } catch (error) {
    process.stderr.write(`editgate review: ${(error as Error).message}\n`);
    return 2;
  }
  const under = (session: LoggedSession) =>
    session.changes.some((change) => change.absolute === root || change.absolute.startsWith(root + sep));

  if (values.list || values.session === undefined) {
    const sessions = (await listSessions(stateDir)).filter(under);
    if (values.json) {
      for (const session of sessions) process.stdout.write(`${JSON.stringify(listed(session))}\n`);
      return 0;
    }
    if (sessions.length === 0) {
      process.stdout.write(`No session has changed a file under ${root} yet.\n`);
      return 0;
    }
    for (const session of sessions) {
      const { id, face, label, last, files, changes } = listed(session);
      process.stdout.write(
        `${visibleText(id)}  ${face}${label ? ` (${visibleText(label)})` : ''}  ${last.replace('T', ' ').slice(0, 16)}  ${files} file${files === 1 ? '' : 's'}, ${changes} change${changes === 1 ? '' : 's'}\n`,
      );
    }
    process.stdout.write('Review one with editgate review --session ID (or --session last).\n');
    return 0;
  }

  let session: LoggedSession;
  try {
    session = await findSession(stateDir, values.session, under);
  } catch (error) {
    process.stderr.write(`editgate review: ${(error as Error).message}\n`);
    return 1;
  }
  const review = await openSessionReview(session);
  const id = visibleText(session.info.id);
  for (const file of review.unreviewable)
    process.stderr.write(`editgate review: ${visibleText(file.path)}: ${file.why}.\n`);
  if (!review.question) {
    process.stdout.write(
      review.settled > 0 && review.unreviewable.length === 0
        ? `Session ${id} has no changes left to review: its changes to ${review.settled} file${review.settled === 1 ? ' were' : 's were'} undone or reverted since.\n`
        : review.unreviewable.length > 0
          ? `Nothing of session ${id} can be reviewed here (see above).\n`
          : `Session ${id} has no changes to review.\n`,
    );
    return review.unreviewable.length > 0 ? 1 : 0;
  }

  const web = (values.approve ?? config.config.approve) === 'web';
  let decision: Decision | undefined;
  let closePage: (() => Promise<void>) | undefined;
  if (web) {
    const page = await openWebReview({ root, open: values.open === true }, 'editgate review --session');
    // Closed once the review is written: the page's answer is still being sent when `ask` resolves.
    closePage = () => page.close();
    process.stderr.write(`${page.announcement.join('\n')}\n`);
    try {
      decision = await page.ask(review.question);
    } catch (error) {
      await page.close();
      throw error;
    }
  } else {
    const person = findPersonAtTerminal({ stdinBusy: false });
    if (!person) {
      process.stderr.write(
        'editgate review: there is no terminal to walk the hunks in; review on the web page with --approve web.\n',
      );
      return 1;
    }
    try {
      decision = await walkSessionReview(review.question, {
        input: person.input,
        output: person.output,
        noColor: values['no-color'] === true,
        ...(values.theme ? { theme: values.theme as ThemeOption } : {}),
      });
    } finally {
      person.close();
    }
    if (decision === undefined) return 0;
  }

  const gate = await openGate({
    roots: session.info.roots,
    deny: config.options.deny,
    stateDir,
    approve: 'deny',
    readOnlyTools: ['read_file'],
    requireReadBeforeEdit: false,
    ...(config.options.auditLog ? { auditLog: config.options.auditLog } : {}),
    // The reverts are part of the reviewed session: its next review starts from what is on disk.
    sessionLog: { id: session.info.id, face: session.info.face },
  });
  try {
    const outcome = await applySessionReview(gate, review, decision);
    for (const line of reviewSummary(outcome)) process.stdout.write(`${visibleText(line)}\n`);
    if (outcome.note) {
      const face = session.info.face;
      process.stdout.write(
        face === 'chat' || face === 'mcp' || face === 'proxy'
          ? `The agent of session ${id} is told what was reverted and why at its next ${face === 'chat' ? 'turn' : 'tool call'}.\n`
          : `What was reverted and why is kept for the agent in ${session.folder}/note.txt (a ${face} session has no next turn editgate answers: tell the agent yourself).\n`,
      );
    }
    return outcome.refused.length > 0 ? 1 : 0;
  } catch (error) {
    if (!isEditgateError(error)) throw error;
    process.stderr.write(`editgate review: ${error.message}\n`);
    return 1;
  } finally {
    await closePage?.();
  }
}

function listed(session: LoggedSession) {
  return {
    id: session.info.id,
    face: session.info.face,
    ...(session.info.label ? { label: session.info.label } : {}),
    started: session.info.started,
    last: session.last,
    files: new Set(session.changes.map((change) => change.absolute)).size,
    changes: session.changes.length,
  };
}
