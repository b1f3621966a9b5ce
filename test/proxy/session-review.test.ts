/**
 * A proxy process is one session (#30 item 4): the upstream server's writes are in its log, a review reverts
 * one hunk of them through the gate, and the proxied client's next call carries the reason, once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openGate } from '../../src/gate/open-gate.js';
import { applySessionReview, openSessionReview } from '../../src/gate/session-review.js';
import { listSessions } from '../../src/workspace/session-log.js';
import { call, connectProxy, filesystemUpstream, workspace } from './helpers.js';

const before = `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
const after = before
  .replace('line 3\n', 'line three\n')
  .replace('line 15\n', 'line fifteen\n')
  .replace('line 27\n', 'line twenty-seven\n');

describe('session review through the proxy', () => {
  it("the upstream's write is logged; a revert's reason reaches the next call's result once", async () => {
    const { root, state } = workspace({ 'a.txt': before });
    const { client } = await connectProxy({
      upstream: filesystemUpstream(root),
      roots: [root],
      stateDir: state,
      approve: 'web',
      web: () => 'once',
    });
    const path = join(root, 'a.txt');
    expect((await call(client, 'write_file', { path, content: after })).isError).toBe(false);

    const [session] = await listSessions(state);
    expect(session?.info).toMatchObject({ face: 'proxy' });
    const review = await openSessionReview(session!);
    const gate = await openGate({
      roots: session!.info.roots,
      stateDir: state,
      approve: 'deny',
      sessionLog: { id: session!.info.id, face: 'proxy' },
    });
    await applySessionReview(gate, review, {
      allow: 'once',
      hunks: { 'a.txt': { accept: [0, 2], reject: [{ hunk: 1, reason: 'fifteen stays a number' }] } },
    });
    expect(readFileSync(path, 'utf8')).toBe(after.replace('line fifteen\n', 'line 15\n'));

    const next = await call(client, 'list_allowed_directories', {});
    expect(next.text).toContain(
      "a.txt hunk 2 of 3 (line 15 as it is now): the user's reason: fifteen stays a number",
    );
    expect((await call(client, 'list_allowed_directories', {})).text).not.toContain('fifteen stays');
  }, 60_000);
});
