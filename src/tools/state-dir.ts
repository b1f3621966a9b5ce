import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The user's state folder: where the CLI keeps undo history between runs (each `editgate edit` is its own
 * process, and `editgate undo` a later one) and where the trust records of config files live. Outside
 * every workspace, per user: EDITGATE_STATE_DIR, else the XDG state folder. A trusted config file's
 * `stateDir` wins over both for history (never for trust records).
 */
export function defaultStateDir(env: Record<string, string | undefined> = process.env): string {
  if (env.EDITGATE_STATE_DIR) return env.EDITGATE_STATE_DIR;
  const base = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(base, 'editgate');
}
