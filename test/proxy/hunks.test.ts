/**
 * Part of a change through the proxy (#30): the person takes some hunks, the gate rebuilds the change from
 * them, and the proxy sends the server a call that writes exactly those bytes (server-filesystem's
 * write_file, in place of the model's write_file or edit_file). The model reads what landed and what did
 * not, with the person's reasons. A server with no tool that writes exact bytes takes the call whole.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApprovalRequest, Approver } from '../../src/gate/approval.js';
import type { UpstreamConnector } from '../../src/proxy/upstream.js';
import { call, connectProxy, filesystemUpstream, inProcessUpstream, workspace } from './helpers.js';

const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
/** Three hunks, far apart: lines 2, 15 and 28 changed. */
const changed = (eol: string) =>
  `${lines
    .map((line, i) =>
      i === 1 ? 'line TWO' : i === 14 ? 'line FIFTEEN' : i === 27 ? 'line 28 and more' : line,
    )
    .join(eol)}${eol}`;
const original = (eol: string) => `${lines.join(eol)}${eol}`;
/** Hunks 1 and 3 only. */
const partial = (eol: string) =>
  `${lines.map((line, i) => (i === 1 ? 'line TWO' : i === 27 ? 'line 28 and more' : line)).join(eol)}${eol}`;

/** Takes every hunk but the second, which it rejects with `reason`. */
function rejectSecond(asked: ApprovalRequest[], reason = 'fifteen stays a number'): Approver {
  return (request) => {
    asked.push(request);
    const accept = request.files[0]!.diff.hunks.map((_, hunk) => hunk).filter((hunk) => hunk !== 1);
    return { allow: 'once', hunks: { [request.files[0]!.path]: { accept, reject: [{ hunk: 1, reason }] } } };
  };
}

async function proxied(
  files: Record<string, string | Buffer>,
  approver: Approver,
  options: { upstream?: (root: string) => UpstreamConnector; config?: Record<string, unknown> } = {},
) {
  const { root, state } = workspace(files);
  const { client } = await connectProxy({
    upstream: (options.upstream ?? filesystemUpstream)(root),
    roots: [root],
    stateDir: state,
    approve: 'web',
    web: approver,
    ...(options.config ? { config: options.config } : {}),
  });
  return { client, root, state, path: (name: string) => join(root, name) };
}

describe('hunk decisions through the proxy, with the reference filesystem server', () => {
  it('write_file with hunk 2 of 3 rejected: hunks 1 and 3 written byte for byte, the model reads the reason', async () => {
    const asked: ApprovalRequest[] = [];
    const auditLog = join(workspace({}).state, 'audit.jsonl');
    const { client, path } = await proxied({ 'a.txt': original('\n') }, rejectSecond(asked), {
      config: { auditLog },
    });
    const result = await call(client, 'write_file', { path: path('a.txt'), content: changed('\n') });
    expect(result.isError, result.text).toBe(false);
    expect(asked[0]!.files[0]!.diff.hunks).toHaveLength(3);
    // The hunks can be chosen: nothing says the server takes the call whole.
    expect(asked[0]!.files[0]!.wholeOnly).toBeUndefined();
    expect(readFileSync(path('a.txt'))).toEqual(Buffer.from(partial('\n')));
    expect(result.text).toContain('The user accepted only part of your change; the rest was NOT written.');
    expect(result.text).toContain('a.txt: 2 of 3 hunks: hunk 1 (now line 2), hunk 3 (now line 28)');
    expect(result.text).toContain(
      "a.txt hunk 2 of 3 (line 15 as it is now): the user's reason: fifteen stays a number",
    );
    expect(result.text).toContain('+line FIFTEEN');
    // The audit line is of the write that was made, compared with the bytes approved.
    const audit = readFileSync(auditLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      tool: 'write_file',
      decision: 'once',
      decidedBy: 'user',
      asApproved: true,
    });
  });

  it('a CRLF file keeps its CRLF line endings in the part written', async () => {
    const asked: ApprovalRequest[] = [];
    const { client, path } = await proxied({ 'crlf.txt': original('\r\n') }, rejectSecond(asked));
    const result = await call(client, 'write_file', { path: path('crlf.txt'), content: changed('\r\n') });
    expect(result.isError, result.text).toBe(false);
    expect(readFileSync(path('crlf.txt'))).toEqual(Buffer.from(partial('\r\n')));
  });

  it('edit_file with three edits becomes a write_file of hunks 1 and 3, to the same file', async () => {
    const asked: ApprovalRequest[] = [];
    const { client, path } = await proxied({ 'b.txt': original('\n') }, rejectSecond(asked, ''));
    const result = await call(client, 'edit_file', {
      path: path('b.txt'),
      edits: [
        { oldText: 'line 2\n', newText: 'line TWO\n' },
        { oldText: 'line 15\n', newText: 'line FIFTEEN\n' },
        { oldText: 'line 28\n', newText: 'line 28 and more\n' },
      ],
    });
    expect(result.isError, result.text).toBe(false);
    expect(asked[0]!.tool).toBe('edit_file');
    expect(readFileSync(path('b.txt'), 'utf8')).toBe(partial('\n'));
    expect(result.text).toContain('in place of your edit_file call, write_file wrote b.txt');
    expect(result.text).toContain('b.txt: 2 of 3 hunks');
  });

  it('the file changed while the person chose: refused as STALE, the other writer keeps its bytes', async () => {
    let target = '';
    const { client, path } = await proxied({ 'c.txt': original('\n') }, (request) => {
      writeFileSync(target, 'someone else\n');
      return { allow: 'once', hunks: { [request.files[0]!.path]: { accept: [0], reject: [{ hunk: 1 }] } } };
    });
    target = path('c.txt');
    const result = await call(client, 'write_file', { path: target, content: changed('\n') });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('STALE');
    expect(readFileSync(target, 'utf8')).toBe('someone else\n');
  });

  it('a choice of hunks that does not fit the change is refused whole, nothing written', async () => {
    const { client, path } = await proxied({ 'd.txt': original('\n') }, (request) => ({
      allow: 'once',
      hunks: { [request.files[0]!.path]: { accept: [0, 7] } },
    }));
    const result = await call(client, 'write_file', { path: path('d.txt'), content: changed('\n') });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('d.txt has no hunk 7');
    expect(readFileSync(path('d.txt'), 'utf8')).toBe(original('\n'));
  });

  it('policy that denies write_file leaves edit_file whole: the hunks cannot be chosen, and say why', async () => {
    const asked: ApprovalRequest[] = [];
    const { client, path } = await proxied({ 'e.txt': original('\n') }, rejectSecond(asked), {
      config: { policy: { rules: [{ tool: 'write_file', action: 'deny' }] } },
    });
    const result = await call(client, 'edit_file', {
      path: path('e.txt'),
      edits: [
        { oldText: 'line 2\n', newText: 'line TWO\n' },
        { oldText: 'line 15\n', newText: 'line FIFTEEN\n' },
      ],
    });
    expect(asked[0]!.files[0]!.wholeOnly).toContain('policy does not allow write_file on it');
    expect(result.isError).toBe(true);
    expect(result.text).toContain('accept all of its hunks or none');
    expect(readFileSync(path('e.txt'), 'utf8')).toBe(original('\n'));
  });
});

describe("hunk boxes in the client's form, through the proxy", () => {
  it('a box per hunk; hunk 2 unticked with a reason writes hunks 1 and 3, and the model reads the reason', async () => {
    const { root, state } = workspace({ 'a.txt': original('\n') });
    const { client, fields } = await connectProxy(
      { upstream: filesystemUpstream(root), roots: [root], stateDir: state },
      {
        answers: [
          {
            action: 'accept',
            content: {
              decision: 'Allow once',
              reason: 'fifteen stays a number',
              hunk_1: true,
              hunk_2: false,
              hunk_3: true,
            },
          },
        ],
      },
    );
    const result = await call(client, 'write_file', { path: join(root, 'a.txt'), content: changed('\n') });
    expect(result.isError, result.text).toBe(false);
    expect(Object.keys(fields[0]!)).toEqual(['decision', 'reason', 'hunk_1', 'hunk_2', 'hunk_3']);
    expect(fields[0]!.hunk_2).toMatchObject({
      type: 'boolean',
      title: 'Write hunk 2 of 3 of a.txt (@@ -12,7 +12,7 @@)',
      default: true,
    });
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe(partial('\n'));
    expect(result.text).toContain(
      "a.txt hunk 2 of 3 (line 15 as it is now): the user's reason: fifteen stays a number",
    );
  });

  it('a server that cannot write part of the call gets no boxes', async () => {
    const calls: string[] = [];
    const { root, state } = workspace({ 'f.txt': original('\n') });
    const { client, fields } = await connectProxy(
      { upstream: inProcessUpstream(replaceOnlyServer(calls)), roots: [root], stateDir: state },
      { answers: [{ action: 'accept', content: { decision: 'Allow once' } }] },
    );
    const result = await call(client, 'replace_text', {
      path: join(root, 'f.txt'),
      old_string: original('\n'),
      new_string: changed('\n'),
    });
    expect(result.isError, result.text).toBe(false);
    expect(Object.keys(fields[0]!)).toEqual(['decision', 'reason']);
    expect(readFileSync(join(root, 'f.txt'), 'utf8')).toBe(changed('\n'));
  });
});

/** A server whose only write tool replaces old text with new: it cannot be made to write exact bytes. */
function replaceOnlyServer(calls: string[]) {
  return () => {
    const server = new McpServer({ name: 'replace-only', version: '1.0.0' });
    server.registerTool(
      'replace_text',
      { inputSchema: { path: z.string(), old_string: z.string(), new_string: z.string() } },
      async ({ path, old_string, new_string }) => {
        calls.push('replace_text');
        writeFileSync(path, readFileSync(path, 'utf8').replace(old_string, new_string));
        return { content: [{ type: 'text', text: 'replaced' }] };
      },
    );
    server.registerTool(
      'save_file',
      { inputSchema: { file_path: z.string(), content: z.string() } },
      async ({ file_path, content }) => {
        calls.push(`save_file ${content.length}`);
        writeFileSync(file_path, content);
        return { content: [{ type: 'text', text: `saved ${file_path}` }] };
      },
    );
    return server;
  };
}

describe('hunk decisions through the proxy, with servers editgate knows by shape', () => {
  it('a server with no whole-file writer for the call takes it whole: wholeOnly says so, nothing is sent', async () => {
    const calls: string[] = [];
    const asked: ApprovalRequest[] = [];
    const { client, path } = await proxied({ 'f.txt': original('\n') }, rejectSecond(asked), {
      upstream: () => inProcessUpstream(replaceOnlyServer(calls)),
    });
    const result = await call(client, 'replace_text', {
      path: path('f.txt'),
      old_string: original('\n'),
      new_string: changed('\n'),
    });
    expect(asked[0]!.files[0]!.wholeOnly).toContain(
      "has no tool editgate knows to write a file's exact bytes (a write_file of a path and the whole content)",
    );
    expect(result.isError).toBe(true);
    expect(result.text).toContain('accept all of its hunks or none');
    expect(calls).toEqual([]);
    expect(readFileSync(path('f.txt'), 'utf8')).toBe(original('\n'));
  });

  it('a whole-content tool writes the part itself: the same tool, the rebuilt content', async () => {
    const calls: string[] = [];
    const asked: ApprovalRequest[] = [];
    const { client, path } = await proxied({ 'g.txt': original('\n') }, rejectSecond(asked), {
      upstream: () => inProcessUpstream(replaceOnlyServer(calls)),
    });
    const result = await call(client, 'save_file', { file_path: path('g.txt'), content: changed('\n') });
    expect(result.isError, result.text).toBe(false);
    expect(calls).toEqual([`save_file ${partial('\n').length}`]);
    expect(readFileSync(path('g.txt'), 'utf8')).toBe(partial('\n'));
    expect(result.text).toContain("the user's reason: fifteen stays a number");
  });
});
