// `editgate trust [ROOT]`: show what a root's config file would do, and trust it (tools/config-trust.ts);
// `--revoke` forgets that trust.
import { realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isEditgateError } from '../../core/errors.js';
import { CONFIG_FILE, loadConfig, trustCommand } from '../../tools/config.js';
import { revokeTrust, trustLoaded, trustSummary } from '../../tools/config-trust.js';
import { EXIT } from '../exit-codes.js';
import { commandHelp, usageFailure } from '../file-command.js';
import { findPersonAtTerminal } from '../person.js';
import { askToTrust } from '../trust.js';
import { type GlobalOptionName, parseCommandLine, UsageError } from '../usage.js';

const options = {
  show: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  revoke: { type: 'boolean' },
} as const;
const GLOBALS: readonly GlobalOptionName[] = ['root', 'config'];

export const HELP = `Usage: editgate trust [ROOT] [--show | --yes | --revoke]

Show what ROOT's editgate.config.json (or --config FILE) would do, then ask whether you trust it (y/N). A
config file comes with the folder, so whoever wrote it is not necessarily you: until you trust it, editgate
runs none of its hook commands, ignores its auditLog and stateDir, and applies nothing that loosens
protection (allow rules, "requireReadBeforeEdit": false, proxy tools marked read-only); its deny globs and
its deny and ask rules apply always, and .git and editgate.config.json are refused to every tool whatever
the config says.

Trust is for this folder's use of this file with this content: the record (in your state folder,
~/.local/state/editgate/trust, never in the folder, and sealed with a key only your state folder holds)
names the folder, the file and its content, so a change to the file untrusts it, and trust never carries
over to another folder (a clone, or a copy of the config). A config file that is a symbolic link is refused.

Options:
  --show      show what the config would do, and whether it is trusted; trust nothing
  -y, --yes   trust it without asking (for scripts: read what it does first, with --show)
  --revoke    forget the trust given to this folder's config: its hooks no longer run, and it applies only
              where it tightens protection until you trust it again

Without a terminal to ask at, editgate trust refuses unless --yes is given.`;

export async function run(args: string[]): Promise<number> {
  let line: ReturnType<typeof parseCommandLine<typeof options>>;
  try {
    line = parseCommandLine(args, options, GLOBALS);
    if (line.help) {
      process.stdout.write(commandHelp(HELP, GLOBALS));
      return EXIT.ok;
    }
    if (line.positionals.length > 1) throw new UsageError('give at most one ROOT');
    const chosen = (['show', 'yes', 'revoke'] as const).filter((name) => line.values[name] === true);
    if (chosen.length > 1) throw new UsageError(`give one of --${chosen.join(', --')}`);
  } catch (error) {
    return usageFailure('trust', error);
  }
  const root = line.positionals[0] ? resolve(line.positionals[0]) : line.globals.root;
  const explicitPath = line.globals.config;
  try {
    if (line.values.revoke) return await revoke(root, explicitPath);
    const loaded = await loadConfig(root, explicitPath);
    if (loaded.path === undefined || loaded.trust === undefined) {
      process.stdout.write(`There is no editgate.config.json in ${root}: nothing to trust.\n`);
      return EXIT.ok;
    }
    process.stdout.write(`${trustSummary(loaded)}\n`);
    if (loaded.trust.trusted) {
      process.stdout.write('It is trusted (as it is now).\n');
      return EXIT.ok;
    }
    if (line.values.show) {
      process.stdout.write(`It is not trusted. To trust it: ${trustCommand(root, explicitPath)}\n`);
      return EXIT.ok;
    }
    if (!line.values.yes) {
      const person = findPersonAtTerminal({ stdinBusy: false });
      if (!person) {
        process.stderr.write(
          `editgate trust: there is no terminal to ask at, so nothing was trusted. Read what it would do (above), then run ${trustCommand(root, explicitPath)} --yes to trust it.\n`,
        );
        return EXIT.refused;
      }
      try {
        if (!(await askToTrust(person, 'Trust it? [y/N] '))) {
          process.stdout.write('Not trusted; nothing was recorded.\n');
          return EXIT.denied;
        }
      } finally {
        person.close();
      }
    }
    const record = await trustLoaded(loaded);
    process.stdout.write(
      `Trusted (recorded in ${record}). A change to the file makes it untrusted again; ${trustCommand(root, explicitPath)} --revoke forgets it.\n`,
    );
    return EXIT.ok;
  } catch (error) {
    if (!isEditgateError(error)) throw error;
    process.stderr.write(`editgate trust: ${error.message}\n`);
    return EXIT.refused;
  }
}

async function revoke(root: string, explicitPath: string | undefined): Promise<number> {
  const path = explicitPath ? resolve(explicitPath) : join(root, CONFIG_FILE);
  const canonical = async (folder: string) => realpath(folder).catch(() => folder);
  const record = await revokeTrust({ root: await canonical(root), path: await canonical(path) });
  process.stdout.write(
    record === null
      ? `${path} was not trusted for ${root}: nothing to revoke.\n`
      : `Trust in ${path} for ${root} is revoked (removed ${record}): its hooks no longer run, and it applies only where it tightens protection.\n`,
  );
  return EXIT.ok;
}
