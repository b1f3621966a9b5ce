// Installs the coding agents that test/agents/ drives (Claude Code, Codex, Gemini CLI, OpenCode, Qwen Code) at
// the versions pinned in test/agents/pinned-agents.json, each in a folder of its own OUTSIDE editgate's
// dependencies: `npm install --prefix <cache>/<name>@<version>`. The cache is $EDITGATE_AGENTS_DIR, else
// ~/.cache/editgate-agents (kept between runs, shared by every clone on the machine). An agent already
// installed at its pinned version is not touched, so a second run takes well under a second. A fresh
// install is checked by running the agent's --version (and --check checks the cached ones the same way).
//
//   node scripts/install-agents.mjs            install what is missing, print where each agent is
//   node scripts/install-agents.mjs codex      only the agents named
//   node scripts/install-agents.mjs --check    also run --version of the agents already installed
//
// Exit code 1 when an install fails or the installed command does not answer --version.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const pinned = JSON.parse(readFileSync(join(repo, 'test', 'agents', 'pinned-agents.json'), 'utf8'));
const cache = process.env.EDITGATE_AGENTS_DIR || join(homedir(), '.cache', 'editgate-agents');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const check = process.argv.includes('--check');
const wanted = process.argv.slice(2).filter((arg) => arg !== '--check');
const unknown = wanted.filter((name) => !(name in pinned));
if (unknown.length > 0) {
  console.error(`Unknown agent ${unknown.join(', ')}. Known: ${Object.keys(pinned).join(', ')}.`);
  process.exit(2);
}

let failed = false;
for (const [name, { package: pkg, version, bin }] of Object.entries(pinned)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const folder = join(cache, `${name}@${version}`);
  const command = join(folder, 'node_modules', '.bin', bin);
  const marker = join(folder, '.installed');
  const started = performance.now();
  try {
    const fresh = !existsSync(marker);
    if (fresh) {
      // Install beside the final folder, then rename: a run stopped half-way never leaves a folder that looks done.
      const partial = `${folder}.partial-${process.pid}`;
      rmSync(partial, { recursive: true, force: true });
      mkdirSync(partial, { recursive: true });
      // Install scripts run as the npm in use decides (npm 11 skips those not allowed by allowScripts): the
      // agents work either way, their bin shims find the per-platform binary package by themselves.
      execFileSync(
        npm,
        ['install', '--prefix', partial, '--no-audit', '--no-fund', '--no-save', `${pkg}@${version}`],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      rmSync(folder, { recursive: true, force: true });
      renameSync(partial, folder);
    }
    if (fresh || check) {
      const answer = execFileSync(command, ['--version'], { encoding: 'utf8', timeout: 60_000 }).trim();
      if (!answer.includes(version)) throw new Error(`${bin} --version answered "${answer}", not ${version}`);
    }
    // Written last: a folder without it is a half-finished or unchecked install and is done again.
    if (fresh) writeFileSync(marker, `${pkg}@${version}\n`);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`${name.padEnd(12)} ${pkg}@${version}  ${command}  (${seconds} s)`);
  } catch (error) {
    failed = true;
    const detail = error instanceof Error ? error.message : String(error);
    console.error(`${name}: ${pkg}@${version} could not be installed or run: ${detail}`);
  }
}
process.exit(failed ? 1 : 0);
