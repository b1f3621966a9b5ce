/**
 * docs/hooks/{gemini-cli,qwen-code,opencode}.md show what is true: the settings a page shows are what
 * `editgate hooks install` writes for that command, and every `editgate hooks ...` line in a page runs (with
 * --dry-run, in a HOME of its own).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentId } from '../../src/hooks/adapter.js';
import { hookAgent } from '../../src/hooks/agents.js';
import { ensureBuilt, MAIN, REPO } from '../built-cli.js';

const PAGES: AgentId[] = ['gemini-cli', 'qwen-code', 'opencode'];

function blocks(page: string, lang: string): string[] {
  const found: string[] = [];
  const fence = new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm');
  for (const match of page.matchAll(fence)) found.push(match[1]!);
  return found;
}

const home = mkdtempSync(join(tmpdir(), 'editgate-docs-hooks-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe.each(PAGES)('docs/hooks/%s.md', (agent) => {
  const page = readFileSync(join(REPO, 'docs', 'hooks', `${agent}.md`), 'utf8');

  it('shows the settings editgate hooks install writes', async () => {
    const { adapter, installer } = await hookAgent(agent)!.load();
    for (const shown of blocks(page, 'json')) {
      const node = `/usr/bin/node /opt/editgate/dist/cli/main.js hook ${agent} --approve agent`;
      const line = `/bin/bash /opt/editgate/dist/cli/hook-entry.sh ${node}`;
      const written = installer.add(undefined, {
        argv: line.split(' '),
        nodeArgv: node.split(' '),
        identityFile: '/opt/editgate/dist/cli/hook-identity',
        line,
        timeoutSeconds: adapter.timeoutSeconds,
        approve: 'agent',
        failOpen: false,
      });
      expect(JSON.parse(shown)).toEqual(JSON.parse(written));
    }
  });

  it('every editgate hooks command it shows runs', async () => {
    await ensureBuilt();
    const lines = blocks(page, 'sh')
      .flatMap((block) => block.split('\n'))
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter((line) => line.startsWith('editgate hooks'));
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) {
      const args = line.split(/\s+/).slice(1);
      const dry = args[1] === 'status' ? [] : ['--dry-run'];
      const output = execFileSync(process.execPath, [MAIN, ...args, ...dry, '--root', home], {
        env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), NO_COLOR: '1' },
        encoding: 'utf8',
      });
      expect(output, line).not.toBe('');
    }
  }, 300_000);
});
