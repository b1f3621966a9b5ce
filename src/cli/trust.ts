import { isEditgateError } from '../core/errors.js';
import { createKeyReader } from '../terminal/keys.js';
import { enterRawMode } from '../terminal/tty-modes.js';
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
 * not. Keys typed before the question was on screen are dropped: they were meant for something else.
 */
export async function askToTrust(person: PersonAtTerminal, question: string): Promise<boolean> {
  const restore = enterRawMode(person.input);
  const keys = createKeyReader(person.input);
  let key: Awaited<ReturnType<typeof keys.next>>;
  try {
    // Whatever arrived before now was typed before the question could be read.
    await new Promise((resolve) => setImmediate(resolve));
    keys.discardPending();
    person.output.write(question);
    key = await keys.next();
  } finally {
    keys.close();
    restore();
  }
  const yes = key.name === 'char' && key.char.toLowerCase() === 'y';
  person.output.write(yes ? 'y\n' : 'n\n');
  return yes;
}
