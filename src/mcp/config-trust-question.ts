import { join, resolve } from 'node:path';
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { isEditgateError } from '../core/errors.js';
import { markInvisible } from '../core/invisible.js';
import { CONFIG_FILE, type LoadedConfig, loadConfig, trustCommand } from '../tools/config.js';
import { trustLoaded, trustSummary } from '../tools/config-trust.js';
import type { Logger } from './logger.js';

/**
 * The MCP server's question about an untrusted editgate.config.json (issue #13). It is asked at a session's
 * first tool call, never at start-up (this module is loaded only then): through the client's elicitation
 * form when it has one (trust it / not now; a yes is recorded as `editgate trust` records it, and the
 * config is loaded again, whole). Without a form, or on not now, the first tool result tells the model (and
 * so the person) what was ignored and the command that trusts it.
 */

const TRUST = 'Trust it';
const NOT_NOW = 'Not now';

export interface TrustQuestion {
  loaded: LoadedConfig;
  /** The first root, the one whose config it is. */
  root: string;
  /** Asks the person through the client's form; absent when the client has none. */
  elicit?: (params: ElicitRequestFormParams) => Promise<ElicitResult>;
  log: Logger;
}

/** `config`: the config to use from now on (when the person trusted it); `note`: for the first result. */
export interface TrustAnswer {
  config?: LoadedConfig;
  note?: string;
}

export async function settleConfigTrust(question: TrustQuestion): Promise<TrustAnswer> {
  const { loaded, root, log } = question;
  const explicitPath = loaded.path === join(resolve(root), CONFIG_FILE) ? undefined : loaded.path;
  const reload = () => loadConfig(root, explicitPath);
  // Trusted meanwhile (editgate trust in a terminal, or a yes in another session): nothing to ask.
  const now = await reload();
  if (!now.trust?.notice) return { config: now };
  if (question.elicit) {
    let answer: ElicitResult | undefined;
    try {
      answer = await question.elicit({
        mode: 'form',
        message: markInvisible(
          `${trustSummary(now)}\n\nThis editgate.config.json is not trusted yet (new, or changed since you trusted it), so editgate ignores: ${now.trust.ignored.join('; ')}. Trust it? (Not now: it stays ignored; you can trust it later with ${trustCommand(root, explicitPath)})`,
        ),
        requestedSchema: {
          type: 'object',
          properties: { decision: { type: 'string', title: 'Trust this config?', enum: [TRUST, NOT_NOW] } },
          required: ['decision'],
        },
      });
    } catch (error) {
      log.warn(`could not ask about the config: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (answer?.action === 'accept' && answer.content?.decision === TRUST) {
      try {
        await trustLoaded(now);
        log.info(`${now.path} trusted by the user; it applies whole`);
        return { config: await reload() };
      } catch (error) {
        if (!isEditgateError(error)) throw error;
        log.warn(error.message);
      }
    }
  }
  return { note: untrustedNote(now, root, explicitPath) };
}

/** What the model is told with its first result, so the person learns it too. */
function untrustedNote(loaded: LoadedConfig, root: string, explicitPath: string | undefined): string {
  return markInvisible(
    `Note from editgate: ${loaded.path} is not trusted (new, or changed since the user trusted it), so editgate ignored its ${loaded.trust!.ignored.join('; ')}; only what tightens protection applies. Tell the user; to trust it they can read it and run: ${trustCommand(root, explicitPath)}`,
  );
}
