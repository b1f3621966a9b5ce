import { homedir } from 'node:os';
import { join } from 'node:path';
import { EditgateError } from '../core/errors.js';
import { rootHolding, rootWithin } from './outside-roots.js';

/**
 * The user's state folder: where the CLI keeps undo history between runs (each `editgate edit` is its own
 * process, and `editgate undo` a later one) and where the trust records of config files live. Outside
 * every workspace, per user: EDITGATE_STATE_DIR, else ~/.local/state/editgate. A trusted config file's
 * `stateDir` wins over both for history (never for trust records).
 *
 * Not $XDG_STATE_HOME (issue #33): MCP clients start servers without the XDG_* variables, so a shell that
 * sets it and the server a client starts kept history in two folders, and `editgate undo` after an MCP
 * session missed its changes. The home folder is the same for both (os.homedir() reads HOME, else the
 * password database, so a client that drops HOME too changes nothing). EDITGATE_STATE_DIR moves it; set it
 * in the client's server env as well as in the shell.
 */
export function defaultStateDir(env: Record<string, string | undefined> = process.env): string {
  if (env.EDITGATE_STATE_DIR) return env.EDITGATE_STATE_DIR;
  return join(homeFolder(env), '.local', 'state', 'editgate');
}

/** HOME when set, else the user's entry in the password database (what a shell's ~ would be). */
function homeFolder(env: Record<string, string | undefined>): string {
  return env.HOME || homedir();
}

/**
 * The state folder a front end (the CLI's commands, the MCP server, the proxy, the chat) keeps undo history
 * and change-set journals in: a trusted config's `stateDir`, else the user's. Every front end asks here, so
 * one rule holds in all of them (issue #26): no root may hold either folder or the user's state folder
 * (trust records, the review page's discovery files, chat sessions), nor lie inside one. Whatever can write
 * a root (the model through a tool, a proxied server, a build, a cloned repository) could otherwise plant
 * there a journal that recovery acts on or a record that trusts a config. Refused with INVALID_INPUT,
 * saying what to do.
 */
export function stateDirFor(roots: readonly string[], userStateDir: string, configured?: string): string {
  for (const [folder, what] of [
    [userStateDir, "editgate's state folder"],
    [configured, 'the config\'s "stateDir"'],
  ] as const) {
    if (folder === undefined) continue;
    const root = rootHolding(folder, roots);
    if (root !== undefined) {
      const user = folder === userStateDir;
      throw new EditgateError(
        'INVALID_INPUT',
        `The workspace root ${root} holds ${what} ${folder} (undo history, change-set journals${user ? ', trust records' : ''}), where whatever writes the workspace could plant records editgate acts on. Give a narrower root (the project's folder)${user ? ', or set EDITGATE_STATE_DIR to a folder outside every root' : ', or a stateDir outside every root'}.`,
        { stateDir: folder, root },
      );
    }
    const within = rootWithin(folder, roots);
    if (within !== undefined) {
      throw new EditgateError(
        'INVALID_INPUT',
        `The workspace root ${within} is inside ${what} ${folder}, where whatever writes the workspace could plant records editgate acts on. Give a root outside it.`,
        { stateDir: folder, root: within },
      );
    }
  }
  return configured ?? userStateDir;
}
