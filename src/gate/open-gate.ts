/**
 * A gate over a workspace built from plain options (roots, deny globs, a state folder): how a front end gets
 * one without reaching under the gate for the guard, history or streamer (the library's tools and the proxy).
 */
import { type LanguageServerConfig, parseLanguageServers } from '../checks/language-server-config.js';
import { Guard } from '../workspace/guard.js';
import { History } from '../workspace/history.js';
import { newSessionId, type SessionFace, sessionLogFor } from '../workspace/session-log.js';
import { Streamer, type StreamerOptions } from '../workspace/stream/streamer.js';
import { Workspace } from '../workspace/workspace.js';
import { Gate, type GateOptions } from './gate.js';

/** Which session a gate's changes are logged under (workspace/session-log.ts; ARCHITECTURE.md, "Sessions"). */
export interface SessionNaming {
  /** The face's own id for it (a chat session's, an agent's); default: a new one. */
  id?: string;
  face: SessionFace;
  /** How lists name it ("editgate apply", "claude-code"). */
  label?: string;
}

export interface OpenGateOptions extends Omit<GateOptions, 'workspace' | 'sessionLog'> {
  /**
   * The session the changes are logged under, for `editgate review --session`: kept in the state folder,
   * so nothing is logged without one; false logs nothing. Default: a new library session.
   */
  sessionLog?: SessionNaming | false;
  /** Absolute workspace roots. */
  roots: string[];
  /** Deny globs, beside the ones always refused. */
  deny?: string[];
  /** The roots deny globs and policy rules are written against, when `roots` are narrower. */
  ruleRoots?: string[];
  /** Where undo history and change-set journals are kept (what `editgate undo` reads). */
  stateDir?: string;
  /** When a file is streamed, and how. */
  streamer?: StreamerOptions;
  /**
   * Configured language servers (the config's `languageServers`, #32 item 4): their check joins `checks`.
   * Its module loads only when one is configured, and no server starts before a file it checks is changed.
   */
  languageServers?: Record<string, LanguageServerConfig>;
  /** How long a question waits for them, in ms (`languageServerBudgetMs`). Default 1500. */
  languageServerBudgetMs?: number;
}

export async function openGate(options: OpenGateOptions): Promise<Gate> {
  const {
    roots,
    deny,
    ruleRoots,
    stateDir,
    streamer,
    sessionLog: naming = { face: 'library' },
    languageServers,
    languageServerBudgetMs,
    ...gate
  } = options;
  // Every face that opens a gate from a config gets its language servers here, the one place (tools, proxy,
  // hooks, session review).
  if (languageServers !== undefined && parseLanguageServers(languageServers).length > 0) {
    const { languageServerCheck } = await import('./diagnostics-check.js');
    gate.checks = [
      ...(gate.checks ?? []),
      languageServerCheck({ servers: languageServers, budgetMs: languageServerBudgetMs }),
    ];
  }
  const guard = await Guard.create({ roots, deny, ruleRoots });
  const history = new History({ stateDir });
  const workspace = new Workspace({ guard, history, streamer: new Streamer(streamer), stateDir });
  // A change set a killed process left half renamed in these roots is rolled back before anything else,
  // and again before any later read or write while one is found (Workspace.recover).
  await workspace.recover();
  const sessionLog =
    stateDir && naming
      ? sessionLogFor(stateDir, {
          id: naming.id ?? newSessionId(naming.face),
          face: naming.face,
          ...(naming.label ? { label: naming.label } : {}),
          roots,
        })
      : undefined;
  return new Gate({ ...gate, workspace, ...(sessionLog ? { sessionLog } : {}) });
}
