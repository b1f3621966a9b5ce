import type { Finding } from '../core/findings.js';
import { markInvisible } from '../core/invisible.js';
import { LanguageServerStopped, type LspDiagnostic } from './language-server.js';
import { type LanguageServerSpec, languageIdFor } from './language-server-config.js';
import { languageServerFor } from './language-servers.js';

export { closeLanguageServers } from './language-servers.js';

import { addedDiagnostics } from './lsp-delta.js';
import { changedLines } from './syntax-delta.js';

/**
 * The diagnostics a change adds to a file, by a configured language server (issue #32), found before the
 * write: the server is given the file's old text, then its new text, on the real path (language-server.ts),
 * and what it says of the new text that it did not say of the old is the change's (lsp-delta.ts). Loaded
 * only when a configured server checks a changed file (gate/diagnostics-check.ts imports it then).
 */

/** Diagnostics shown per file and server: past these the last one says how many more there are. */
const MOST_SHOWN = 5;
/** Characters of a server's message shown. */
const MOST_MESSAGE_CHARS = 300;

export interface FileToDiagnose {
  /** Workspace-relative, '/'-separated, as findings name it. */
  path: string;
  /** The canonical absolute path the server is told of. */
  absolute: string;
  /** The root the file lies in: the server runs there. */
  root: string;
  before: string;
  after: string;
}

/**
 * What a server said of a change: its findings; or why it could say nothing (one line); or that the wait
 * was stopped before it answered (and whether it was still starting).
 */
export type Diagnosed =
  | { findings: Finding[] }
  | { unavailable: string }
  | { waited: true; starting: boolean };

/**
 * The diagnostics `spec`'s server finds that the change to `file` adds, as findings ('info': change rules
 * with `diagnostics` make them ask or refuse). The server is started if it is not running. `signal` (the
 * budget, the call's cancellation) stops the wait; the caller says what it did not wait for.
 */
export async function diagnoseChange(
  spec: LanguageServerSpec,
  file: FileToDiagnose,
  signal: AbortSignal,
): Promise<Diagnosed> {
  const server = languageServerFor(spec, file.root);
  if (typeof server === 'string') return { unavailable: server };
  try {
    const said = await server.diagnose(
      file.absolute,
      languageIdFor(spec, file.path),
      file.before,
      file.after,
      signal,
    );
    const counted = (diagnostic: LspDiagnostic) =>
      (diagnostic.severity ?? 1) === 1 || (spec.warnings === true && diagnostic.severity === 2);
    const added = addedDiagnostics(
      said.before.filter(counted),
      said.after.filter(counted),
      changedLines(file.before, file.after),
    );
    return { findings: findingsOf(spec.name, file.path, added) };
  } catch (error) {
    if (error instanceof LanguageServerStopped) return { unavailable: error.message };
    if (signal.aborted) return { waited: true, starting: !server.started };
    return {
      unavailable: `its server answered with an error: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function findingsOf(name: string, path: string, added: readonly LspDiagnostic[]): Finding[] {
  const shown = added.slice(0, MOST_SHOWN);
  return shown.map((diagnostic, index) => {
    const more = index === shown.length - 1 && added.length > shown.length ? added.length - shown.length : 0;
    const what = diagnostic.severity === 2 ? 'a warning' : 'an error';
    const origin = [diagnostic.source, diagnostic.code].filter((part) => part !== undefined && part !== '');
    return {
      kind: 'diagnostic',
      path,
      line: diagnostic.range.start.line + 1,
      message: `${oneLine(diagnostic.message)} (${origin.length > 0 ? `${oneLine(origin.join(' '))}: ` : ''}${what} this change adds${more > 0 ? `, and ${more} more` : ''})`,
      severity: 'info',
      source: `lsp:${name}`,
    };
  });
}

/** A server's words on one line, safe on a screen: whitespace runs made one space, invisible characters marked. */
export function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return markInvisible(line.length > MOST_MESSAGE_CHARS ? `${line.slice(0, MOST_MESSAGE_CHARS)}…` : line);
}
