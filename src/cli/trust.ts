import { isEditgateError } from '../core/errors.js';
import { createKeyReader, type Key } from '../terminal/keys.js';
import { enterRawMode } from '../terminal/tty-modes.js';
import { settled, TypingGuard } from '../terminal/typing-guard.js';
import { type LoadedConfig, loadConfig } from '../tools/config.js';
import { trustLoaded, trustSummary } from '../tools/config-trust.js';
import type { PersonAtTerminal } from './person.js';

/**
 * The one-time question of an interactive CLI command (what a config would do and recording trust live in
 * tools/config-trust.ts, shared with the chat and the MCP server): a config that is not trusted and would
 * do more than tighten protection is shown, and the person answers y (trust it now, and load it whole) or anything else (it stays
 * untrusted; the notice says how to trust it later). Without a person the notice alone is printed.
 */
export async function settleTrust(
  loaded: LoadedConfig,
  root: string,
  explicitPath: string | undefined,
  person: PersonAtTerminal | undefined,
): Promise<LoadedConfig> {
  const notice = loaded.trust?.notice;
  if (notice === undefined) return loaded;
  if (!person) {
    process.stderr.write(`${notice}\n`);
    return loaded;
  }
  const yes = await askToTrust(
    person,
    `${trustSummary(loaded)}\nThis config is not trusted yet (new, or changed since you trusted it). Trust it? [y/N] `,
  );
  if (!yes) {
    person.output.write(`${notice}\n`);
    return loaded;
  }
  try {
    await trustLoaded(loaded);
  } catch (error) {
    if (!isEditgateError(error)) throw error;
    person.output.write(`${error.message}\n`);
    return loaded;
  }
  person.output.write('Trusted. A change to the file makes it untrusted again.\n');
  return loadConfig(root, explicitPath);
}

/**
 * Shows `question` (which shows what the config would do) and reads one key: y trusts, anything else does
 * not. Keys typed before the question was on screen, and the rest of their run, do not answer it
 * (terminal/typing-guard.ts): a y typed ahead must not trust a config that runs commands.
 */
export async function askToTrust(person: PersonAtTerminal, question: string): Promise<boolean> {
  const restore = enterRawMode(person.input);
  const keys = createKeyReader(person.input);
  const guard = person.input.isTTY ? new TypingGuard() : undefined;
  let key: Key;
  try {
    if (guard) await settled();
    person.output.write(question);
    guard?.shown();
    for (;;) {
      const timed = await keys.nextTimed();
      const role = guard?.key(timed.at) ?? 'answer';
      if (role === 'answer' || timed.key.name === 'eof') {
        key = timed.key;
        break;
      }
    }
  } finally {
    keys.close();
    restore();
  }
  const yes = key.name === 'char' && key.char.toLowerCase() === 'y';
  person.output.write(yes ? 'y\n' : 'n\n');
  return yes;
}
