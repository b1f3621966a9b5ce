// `editgate hook <agent>`: what an agent's hook configuration runs for each tool call (editgate hooks install
// writes it). Reads the agent's event (JSON) on standard input and answers on standard output with the exit
// code the agent reads (src/hooks/runner.ts). The agent starts it per call, so it loads only what it uses; the
// build bundles it with the rest of what it loads (scripts/bundle-mcp.mjs) and main.ts runs that file.
import { resolve } from 'node:path';
import type { Approver } from '../../gate/approval.js';
import { hookAgent, hookAgentNames } from '../../hooks/agents.js';
import { APPROVE_MODES, type HookApproveMode, runHook } from '../../hooks/runner.js';
import { parseCommandLine, UsageError } from '../usage.js';

export const HELP = `Usage: editgate hook AGENT [--approve MODE] [--root DIR] [--config FILE] [--fail-open]

Run by AGENT (${hookAgentNames().join(', ')}) before and after each of its own edit tools, with the
hook event as JSON on standard input; answers in the agent's own protocol. You do not run it yourself:
editgate hooks install AGENT writes it into the agent's configuration.

  --approve MODE   who decides what no policy rule decides:
                     agent   the agent asks you in its own prompt, with editgate's summary (default)
                     web     the review page of an editgate review running for the root
                     policy  no one: only what the config's "allow" rules cover goes ahead
  --root DIR       the workspace root (default: the folder the agent runs in)
  --config FILE    a config file instead of ROOT/editgate.config.json
  --fail-open      when the hook itself fails (a crash, no review page, no answer in time), let the
                   call go ahead instead of refusing it`;

const OPTIONS = {
  approve: { type: 'string' },
  'fail-open': { type: 'boolean' },
} as const;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function run(args: string[]): Promise<number> {
  let line: ReturnType<typeof parseCommandLine<typeof OPTIONS>>;
  let approve: HookApproveMode;
  try {
    line = parseCommandLine(args, OPTIONS, ['root', 'config']);
    if (line.help) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    if (line.positionals.length !== 1) throw new UsageError(`name one agent: ${hookAgentNames().join(', ')}`);
    const mode = line.values.approve ?? 'agent';
    if (!(APPROVE_MODES as readonly string[]).includes(mode))
      throw new UsageError(`--approve must be one of ${APPROVE_MODES.join(', ')} (got "${mode}")`);
    approve = mode as HookApproveMode;
  } catch (error) {
    // Exit code 2 blocks the tool in every agent that reads exit codes: a broken hook line fails closed.
    process.stderr.write(
      `editgate hook: ${error instanceof Error ? error.message : String(error)}. Nothing was allowed. Run editgate hook --help.\n`,
    );
    return 2;
  }
  const name = line.positionals[0]!;
  const entry = hookAgent(name);
  if (!entry) {
    process.stderr.write(
      `editgate hook: no hooks for "${name}"; editgate has them for ${hookAgentNames().join(', ')}. Nothing was allowed.\n`,
    );
    return 2;
  }
  const { adapter } = await entry.load();
  const rootGiven = args.some((arg) => arg === '--root' || arg.startsWith('--root='));
  const reply = await runHook(await readStdin(), {
    adapter,
    approve,
    ...(rootGiven ? { root: resolve(line.globals.root) } : {}),
    ...(line.globals.config ? { config: line.globals.config } : {}),
    failOpen: line.values['fail-open'] === true,
    reviewPage,
    warn: (message) => process.stderr.write(`${message}\n`),
  });
  if (reply.stderr) process.stderr.write(reply.stderr);
  await new Promise<void>((done) => process.stdout.write(reply.stdout, () => done()));
  return reply.exitCode;
}

/** The page of an `editgate review` running for the root, found through its discovery file. */
async function reviewPage(root: string): Promise<Approver | undefined> {
  const [{ findWebReview }] = await Promise.all([import('../web-review.js')]);
  const look = findWebReview(root, 'editgate hook', (message) =>
    process.stderr.write(`editgate: ${message}\n`),
  );
  return (await look())?.ask;
}
