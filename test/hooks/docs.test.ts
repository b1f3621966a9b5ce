import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN, REPO } from '../built-cli.js';
import { tempFolder } from '../temp-folder.js';

// docs/hooks/*.md as a person follows them: every command the pages show runs, in order, with the built CLI
// and a HOME of its own; what they say install writes is what it writes.

beforeAll(ensureBuilt, 300_000);

function page(name: string): string {
  return readFileSync(join(REPO, 'docs', 'hooks', name), 'utf8');
}

/** The commands of a page's ```sh blocks, one a line. */
function commands(text: string): string[][] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) =>
    block[1]!
      .split('\n')
      .filter((line) => line.startsWith('editgate '))
      .map((line) => line.split(' ').slice(1)),
  );
}

function world() {
  const folder = tempFolder('editgate-hooks-docs-');
  const home = join(folder, 'home');
  const project = join(folder, 'project');
  mkdirSync(home);
  mkdirSync(project);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    EDITGATE_STATE_DIR: join(folder, 'state'),
    NO_COLOR: '1',
  };
  const run = (args: string[]) =>
    execFileSync(process.execPath, [MAIN, ...args], { cwd: project, env, encoding: 'utf8' });
  return { home, project, run };
}

/** The hook command with this machine's paths as the pages name them. */
const asShown = (text: string) =>
  text
    .replaceAll(
      `/bin/bash ${join(dirname(MAIN), 'hook-entry.sh')}`,
      '/bin/bash EDITGATE/dist/cli/hook-entry.sh',
    )
    .replaceAll(`${process.execPath} ${MAIN}`, 'NODE EDITGATE/dist/cli/main.js')
    // Claude Code's http hooks: the hook server's port and token (cli/hook-endpoint.ts).
    .replace(/127\.0\.0\.1:\d+\/hook\//g, '127.0.0.1:PORT/hook/')
    .replace(/Bearer [0-9a-f]{64}/g, 'Bearer TOKEN');

describe('docs/hooks', () => {
  it('claude-code.md: install writes the group it shows, status finds it, uninstall removes it', () => {
    const text = page('claude-code.md');
    const { home, run } = world();
    const settings = join(home, '.claude', 'settings.json');
    const [install, status, uninstall] = commands(text);
    expect(install).toEqual(['hooks', 'install', 'claude-code', '--user', '--approve', 'agent']);
    expect(run(install!)).toContain('+++ ');
    const shown = JSON.parse(/```json\n([\s\S]*?)```/.exec(text)![1]!);
    const written = JSON.parse(asShown(readFileSync(settings, 'utf8')));
    expect(written.hooks.PreToolUse).toEqual([shown]);
    expect(written.hooks.PostToolUse).toEqual([shown]);
    const session = JSON.parse([...text.matchAll(/```json\n([\s\S]*?)```/g)][1]![1]!);
    expect(written.hooks.SessionStart).toEqual([session]);
    expect(written.hooks.SessionEnd).toEqual([session]);
    expect(statSync(settings).mode & 0o777).toBe(0o600);
    expect(run(install!)).toContain('nothing to change');
    expect(run(status!)).toContain('Claude Code (user): installed');
    run(uninstall!);
    expect(JSON.parse(readFileSync(settings, 'utf8'))).toEqual({});
  });

  it('codex.md: install writes hooks.json and the trust, status finds them, uninstall removes both', () => {
    const { home, run } = world();
    const [install, status, uninstall] = commands(page('codex.md'));
    expect(install).toEqual(['hooks', 'install', 'codex', '--user', '--approve', 'web']);
    run(install!);
    const hooks = JSON.parse(readFileSync(join(home, '.codex', 'hooks.json'), 'utf8'));
    expect(asShown(hooks.hooks.PreToolUse[0].hooks[0].command)).toBe(
      '/bin/bash EDITGATE/dist/cli/hook-entry.sh NODE EDITGATE/dist/cli/main.js hook codex --approve web',
    );
    const config = join(home, '.codex', 'config.toml');
    expect(readFileSync(config, 'utf8')).toContain(
      `[hooks.state."${join(home, '.codex', 'hooks.json')}:pre_tool_use:0:0"]`,
    );
    expect(run(status!)).toContain('Codex (user): installed');
    run(uninstall!);
    expect(existsSync(config) ? readFileSync(config, 'utf8') : '').not.toContain('hooks.state');
    expect(run(status!)).toContain('Codex (user): not installed');
  });
});
