/**
 * The proxy forwards a write call whole to the server that writes it: a person's choice of some hunks cannot
 * be forwarded, so it is refused (nothing written), never turned into the whole write (#30).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, Approver } from '../../src/gate/approval.js';
import { call, connectProxy, filesystemUpstream, workspace } from './helpers.js';

const before = `${Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
const after = before.replace('line 2\n', 'line two\n').replace('line 19\n', 'line nineteen\n');

async function proxiedWith(approver: Approver) {
  const { root, state } = workspace({ 'a.txt': before });
  const { client } = await connectProxy({
    upstream: filesystemUpstream(root),
    roots: [root],
    stateDir: state,
    approve: 'web',
    web: approver,
  });
  return { client, path: join(root, 'a.txt') };
}

describe('hunk decisions through the proxy', () => {
  it('some hunks chosen: refused, the server is not called, the file is unchanged', async () => {
    const asked: ApprovalRequest[] = [];
    const { client, path } = await proxiedWith((request) => {
      asked.push(request);
      return {
        allow: 'once',
        hunks: { [request.path]: { accept: [0], reject: [{ hunk: 1, reason: 'no' }] } },
      };
    });
    const result = await call(client, 'write_file', { path, content: after });
    expect(asked[0]!.diff.hunks).toHaveLength(2);
    expect(asked[0]!.wholeOnly).toContain('which takes the call whole');
    expect(result.isError).toBe(true);
    expect(result.text).toContain('DENIED_USER');
    expect(result.text).toContain('accept all of its hunks or none');
    expect(readFileSync(path, 'utf8')).toBe(before);
  });

  it('every hunk chosen: the whole call is forwarded and written', async () => {
    const { client, path } = await proxiedWith((request) => ({
      allow: 'once',
      hunks: { [request.path]: { accept: [0, 1] } },
    }));
    const result = await call(client, 'write_file', { path, content: after });
    expect(result.isError, result.text).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(after);
  });
});
