import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChangeNotice, noticeText, sendNotice } from '../../src/web/notify.js';
import { tempFolder } from '../temp-folder.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A local notification service: what it was sent, method, headers and body. */
async function receiver(status = 200) {
  const got: { method: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      got.push({ method: req.method ?? '', headers: req.headers, body });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  closers.push(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/topic`, got };
}

const notice: ChangeNotice = {
  files: [{ path: 'src/app.ts', kind: 'modify', added: 3, removed: 1 }],
  source: 'editgate mcp (pid 4242)',
  link: 'https://192.168.1.20:8443/?token=abc',
  expiresAt: new Date(Date.now() + 15 * 60_000),
  diff: '@@ -1 +1 @@\n-const secret = 1;\n+const secret = 2;\n',
};

describe('sendNotice', () => {
  it('POSTs plain text ntfy-style: file, +N -M, who asks, the link; nothing of the diff', async () => {
    const service = await receiver();
    expect(await sendNotice({ url: service.url }, notice)).toBeUndefined();
    const [sent] = service.got;
    expect(sent!.method).toBe('POST');
    expect(sent!.headers.title).toBe('editgate: a change waits for your answer');
    expect(sent!.headers.click).toBe(notice.link);
    expect(sent!.body).toBe(
      'src/app.ts +3 -1\nasked by editgate mcp (pid 4242)\nOpen to answer (once, within 15 min): https://192.168.1.20:8443/?token=abc',
    );
    expect(sent!.body).not.toContain('secret');
  });

  it('POSTs JSON for a webhook; the diff only when asked for', async () => {
    const service = await receiver();
    await sendNotice({ url: service.url, format: 'json' }, notice);
    await sendNotice({ url: service.url, format: 'json', includeDiff: true }, notice);
    const [plain, withDiff] = service.got.map((sent) => JSON.parse(sent.body));
    expect(plain).toMatchObject({
      event: 'change-waiting',
      files: notice.files,
      source: notice.source,
      link: notice.link,
      expiresAt: notice.expiresAt.toISOString(),
    });
    expect(plain.diff).toBeUndefined();
    expect(JSON.stringify(plain)).not.toContain('secret');
    expect(withDiff.diff).toBe(notice.diff);
    expect(service.got[0]!.headers['content-type']).toBe('application/json');
  });

  it('says what went wrong when the service refuses or cannot be reached', async () => {
    const service = await receiver(403);
    expect(await sendNotice({ url: service.url }, notice)).toBe(`${service.url} answered HTTP 403`);
    expect(await sendNotice({ url: 'http://127.0.0.1:1/x' }, notice)).toMatch(/fetch failed|ECONNREFUSED/);
  });

  it('runs a command without a shell: data as whole arguments, EDITGATE_NOTIFY_* and JSON on stdin', async () => {
    const folder = tempFolder('editgate-notify-');
    const out = join(folder, 'out.json');
    const script = join(folder, 'record.mjs');
    await writeFile(
      script,
      `import { writeFileSync, readFileSync } from 'node:fs';
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('EDITGATE_NOTIFY_')));
writeFileSync(${JSON.stringify(out)}, JSON.stringify({ argv: process.argv.slice(2), env, stdin: JSON.parse(readFileSync(0, 'utf8')) }));`,
    );
    // A path a model chose, built to break out of a shell: it stays one argument's text.
    const hostile: ChangeNotice = {
      ...notice,
      files: [{ path: 'x$(touch pwned);`id`\n.ts', kind: 'create', added: 1, removed: 0 }],
    };
    expect(
      await sendNotice({ command: [process.execPath, script, '{link}', '{text}', 'plain'] }, hostile),
    ).toBeUndefined();
    const seen = JSON.parse(await readFile(out, 'utf8'));
    expect(seen.argv[0]).toBe(notice.link);
    expect(seen.argv[1]).toContain('x$(touch pwned);`id` .ts +1 -0 (create)');
    expect(seen.argv[2]).toBe('plain');
    expect(seen.env).toMatchObject({
      EDITGATE_NOTIFY_LINK: notice.link,
      EDITGATE_NOTIFY_FILES: 'x$(touch pwned);`id` .ts',
      EDITGATE_NOTIFY_STATS: '+1 -0',
      EDITGATE_NOTIFY_SOURCE: 'editgate mcp (pid 4242)',
    });
    expect(seen.stdin).toMatchObject({ link: notice.link, files: hostile.files });
    expect(seen.stdin.diff).toBeUndefined();
  });

  it('reports a command that fails or does not exist', async () => {
    expect(
      await sendNotice({ command: [process.execPath, '-e', 'console.error("no"); process.exit(3)'] }, notice),
    ).toBe(`${process.execPath} exited with 3: no`);
    expect(await sendNotice({ command: ['/nonexistent/notifier'] }, notice)).toMatch(
      /^cannot run \/nonexistent\/notifier: /,
    );
  });

  it('marks characters a person cannot see in the text', () => {
    const text = noticeText({ ...notice, files: [{ ...notice.files[0]!, path: 'a\u202Egnp.ts' }] });
    expect(text).toContain('a<U+202E>gnp.ts');
  });
});
