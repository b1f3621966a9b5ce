import { readFile, realpath } from 'node:fs/promises';
import { EditgateError, isEditgateError } from '../core/errors.js';
import { markInvisible } from '../core/invisible.js';
import { createKeyReader } from '../terminal/keys.js';
import { enterRawMode } from '../terminal/tty-modes.js';
import { type LoadedConfig, loadConfig } from '../tools/config.js';
import { configHash, describeConfig, recordTrust } from '../tools/config-trust.js';
import type { PersonAtTerminal } from './person.js';

/**
 * Trusting a config file from the CLI: what it would do, in lines a person reads before saying yes (the
 * file's own words marked so none can act on the terminal), and the one-time question of an interactive
 * command. The rule of what an untrusted config may do lives in tools/config-trust.ts.
 */
export function trustSummary(loaded: LoadedConfig): string {
  const lines = describeConfig(loaded.trust!.written).map((line) => `  ${line}`);
  return markInvisible(`${loaded.path} would:\n${lines.join('\n')}`);
}

/**
 * Records trust in the config as it was shown: if the file changed since it was loaded, nothing is
 * recorded (STALE), so no one can swap the file while the person reads it.
 */
export async function trustLoaded(loaded: LoadedConfig): Promise<string> {
  const text = await readFile(loaded.path!, 'utf8');
  if (configHash(text) !== loaded.trust!.hash) {
    throw new EditgateError(
      'STALE',
      `${loaded.path} changed while it was shown; nothing was trusted. Run the command again and read it anew.`,
    );
  }
  return recordTrust(await realpath(loaded.path!), text);
}

/**
 * The one-time question: a config that is not trusted and would do more than tighten protection is
 * shown, and the person answers y (trust it now, and load it whole) or anything else (it stays
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
  person.output.write(
    `${trustSummary(loaded)}\nThis config is not trusted yet (new, or changed since you trusted it). Trust it? [y/N] `,
  );
  const restore = enterRawMode(person.input);
  const keys = createKeyReader(person.input);
  let key: Awaited<ReturnType<typeof keys.next>>;
  try {
    key = await keys.next();
  } finally {
    keys.close();
    restore();
  }
  const yes = key.name === 'char' && key.char.toLowerCase() === 'y';
  person.output.write(yes ? 'y\n' : 'n\n');
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
