/**
 * Language servers' diagnostics as one of the gate's checks (checks.ts, issue #32): each changed file held
 * in memory that a configured server checks (its `files` globs) is given to that server, old text then new,
 * without a write (checks/diagnostics.ts), and the diagnostics the change adds are shown with the question
 * and told to the model ('info'); a change rule with `diagnostics` makes them ask or refuse
 * (change-rules.ts). The question waits for them at most the budget (default 1.5 s): past it, it is shown
 * without them and says so. A server that is missing or stopped gives a one-line note, never a failed
 * change. Nothing is loaded, and no server started, until a file a server checks is changed.
 */

import {
  type LanguageServerConfig,
  type LanguageServerSpec,
  parseBudget,
  parseLanguageServers,
} from '../checks/language-server-config.js';
import { throwIfCancelled } from '../core/errors.js';
import type { Finding } from '../core/findings.js';
import { compileGlob } from '../core/glob.js';
import type { ChangeCheck, CheckContext } from './checks.js';
import type { Proposal, ProposedFile } from './proposal.js';

export interface LanguageServerCheckOptions {
  /** The servers by name (the config's `languageServers`); checked at once, INVALID_INPUT if wrong. */
  servers: Record<string, LanguageServerConfig>;
  /** How long the question waits for them, in ms. Default DEFAULT_BUDGET_MS (1500). */
  budgetMs?: number;
}

/** The diagnostics module, once a check needed it (its servers with it). */
let loaded: Promise<typeof import('../checks/diagnostics.js')> | undefined;

/**
 * Stops the language servers this process started, the protocol's way: for a front end that ends, or a
 * test. Nothing to do when none was started. The process's end stops them anyway.
 */
export async function closeLanguageServers(): Promise<void> {
  if (loaded) await (await loaded).closeLanguageServers();
}

/** The check that asks the configured language servers about every proposed change. */
export function languageServerCheck(options: LanguageServerCheckOptions): ChangeCheck {
  const servers = parseLanguageServers(options.servers).map((spec) => ({
    spec,
    matches: spec.files.map((glob) => compileGlob(glob)),
  }));
  const budgetMs = parseBudget(options.budgetMs);
  return async function languageServerDiagnostics(
    proposal: Proposal,
    context: CheckContext,
  ): Promise<Finding[]> {
    const work: { spec: LanguageServerSpec; file: ProposedFile }[] = [];
    for (const file of proposal.files) {
      if (!file.texts || file.kind === 'delete' || file.texts.before === file.texts.after) continue;
      const relative = file.change.resolved.relative;
      for (const server of servers)
        if (server.matches.some((matches) => matches(relative))) work.push({ spec: server.spec, file });
    }
    if (work.length === 0) return [];
    loaded ??= import('../checks/diagnostics.js');
    const { diagnoseChange } = await loaded;
    // One signal for the budget and the call's cancellation, whichever comes first.
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(new Error('budget')), budgetMs);
    const cancel = () => stop.abort(context.signal?.reason);
    context.signal?.addEventListener('abort', cancel, { once: true });
    if (context.signal?.aborted) cancel();
    const signal = stop.signal;
    try {
      const results = await Promise.all(
        work.map(async ({ spec, file }) => ({
          spec,
          file,
          said: await diagnoseChange(
            spec,
            {
              path: file.path,
              absolute: file.change.resolved.absolute,
              root: file.change.resolved.root,
              before: file.texts!.before,
              after: file.texts!.after,
            },
            signal,
          ),
        })),
      );
      throwIfCancelled(context.signal);
      const found: Finding[] = [];
      const noted = new Set<string>();
      for (const { spec, file, said } of results) {
        if ('findings' in said) {
          found.push(...said.findings);
          continue;
        }
        // One note per server, not one per file of a change set.
        if (noted.has(spec.name)) continue;
        noted.add(spec.name);
        found.push({
          kind: 'rule',
          path: file.path,
          message:
            'unavailable' in said
              ? `type check by ${spec.name} did not run: ${said.unavailable}`
              : `type check by ${spec.name} did not finish in ${seconds(budgetMs)}${said.starting ? ' (its language server is still starting)' : ''}, so its diagnostics are not shown`,
          severity: 'info',
          source: `check:lsp:${spec.name}`,
        });
      }
      return found;
    } finally {
      clearTimeout(timer);
      context.signal?.removeEventListener('abort', cancel);
    }
  };
}

/** A budget in a person's words: 1500 → "1.5 s". */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}
