// `editgate trust [ROOT]`: show what a root's config file would do, and trust it (tools/config-trust.ts).
import { isEditgateError } from '../../core/errors.js';
import { loadConfig } from '../../tools/config.js';
import { trustLoaded, trustSummary } from '../../tools/config-trust.js';
import { EXIT } from '../exit-codes.js';
import { commandHelp, usageFailure } from '../file-command.js';
import { type GlobalOptionName, parseCommandLine, UsageError } from '../usage.js';

const options = { show: { type: 'boolean' } } as const;
const GLOBALS: readonly GlobalOptionName[] = ['root', 'config'];

export const HELP = `Usage: editgate trust [ROOT] [--show]

Show what ROOT's editgate.config.json (or --config FILE) would do, then trust it. A config file comes with
the folder, so whoever wrote it is not necessarily you: until you trust it, editgate runs none of its hook
commands, ignores its auditLog and stateDir, and applies nothing that loosens protection (allow rules,
"requireReadBeforeEdit": false, proxy tools marked read-only); its deny globs and its deny and ask rules
apply always, and .git and editgate.config.json are refused to every tool whatever the config says. The trust record is kept in your state folder
(~/.local/state/editgate/trust), never in the folder, and names the file's content: when the file changes,
it is untrusted again and editgate says so.

Options:
  --show    show what the config would do, and whether it is trusted; trust nothing`;

export async function run(args: string[]): Promise<number> {
  let line: ReturnType<typeof parseCommandLine<typeof options>>;
  try {
    line = parseCommandLine(args, options, GLOBALS);
    if (line.help) {
      process.stdout.write(commandHelp(HELP, GLOBALS));
      return EXIT.ok;
    }
    if (line.positionals.length > 1) throw new UsageError('give at most one ROOT');
  } catch (error) {
    return usageFailure('trust', error);
  }
  const root = line.positionals[0] ?? line.globals.root;
  try {
    const loaded = await loadConfig(root, line.globals.config);
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
      process.stdout.write(`It is not trusted. To trust it: editgate trust ${root}\n`);
      return EXIT.ok;
    }
    const record = await trustLoaded(loaded);
    process.stdout.write(`Trusted (recorded in ${record}). A change to the file makes it untrusted again.\n`);
    return EXIT.ok;
  } catch (error) {
    if (!isEditgateError(error)) throw error;
    process.stderr.write(`editgate trust: ${error.message}\n`);
    return EXIT.refused;
  }
}
