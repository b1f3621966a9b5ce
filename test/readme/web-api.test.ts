import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { reviewWorkspace } from '../web/review-fixture.js';
import { docBlocks } from './blocks.js';

// The README's JSON API script (Web review > JSON API) is run as written, with curl and jq, against a live
// review page holding a pending change: only its link is replaced by the page's own.

const run = promisify(execFile);

/** The README's shell block that signs in with a review link and answers the pending changes. */
function apiScript(): string {
  const block = docBlocks().find(
    (candidate) => candidate.lang === 'sh' && candidate.text.startsWith("link='http://127.0.0.1:"),
  );
  if (!block) throw new Error('docs: the JSON API script (link=...; curl ...) is gone');
  return block.text;
}

describe('the docs’ JSON API script', () => {
  it('signs in with the link and denies the pending change with its reason', async () => {
    const { ws, server, propose } = await reviewWorkspace({ 'a.txt': 'one\n' });
    const change = await propose('write_file', { file_path: 'a.txt', content: 'two\n' });

    const script = apiScript().replace(/^link='[^']*'/m, `link='${server.url}'`);
    expect(script).toContain(server.url);
    await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: ws.root, timeout: 30_000 });

    const outcome = await change.result;
    expect(outcome.ok).toBe(false);
    expect(outcome.ok === false && outcome.code).toBe('DENIED_USER');
    expect(outcome.message).toContain('not today');
    expect(await ws.text('a.txt')).toBe('one\n');
  });
});
