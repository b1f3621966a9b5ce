/**
 * `editgate review --listen` as a person runs it to answer from a phone: the built CLI as processes, a
 * notification service of the person's (a local HTTP server here), and the "phone" an HTTPS client from
 * another loopback address that trusts only the certificate whose fingerprint the terminal printed.
 * 127.0.0.2 stands for the machine's LAN address.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN } from '../built-cli.js';
import { tempFolder } from '../temp-folder.js';
import { cliWorkspace, runCli } from './run-cli.js';

beforeAll(ensureBuilt, 240_000);

const children: ChildProcessWithoutNullStreams[] = [];
const closers: (() => void)[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const close of closers.splice(0)) close();
});

function start(args: string[], ws: { root: string; stateDir: string }, env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN, ...args], {
    cwd: ws.root,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, EDITGATE_STATE_DIR: ws.stateDir, NO_COLOR: '1', ...env },
  });
  children.push(child);
  let output = '';
  const waiters: { pattern: RegExp; resolve: (match: RegExpExecArray) => void }[] = [];
  const feed = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(output);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  };
  child.stdout.on('data', feed);
  child.stderr.on('data', feed);
  child.stdin.end();
  return {
    child,
    output: () => output,
    waitFor: (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve) => {
        const match = pattern.exec(output);
        if (match) resolve(match);
        else waiters.push({ pattern, resolve });
      }),
    exited: new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code))),
  };
}

/** The person's notification service: resolves each POST's body in turn. */
async function notificationService() {
  const bodies: string[] = [];
  const waiting: ((body: string) => void)[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      res.writeHead(200).end();
      const next = waiting.shift();
      if (next) next(body);
      else bodies.push(body);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  closers.push(() => server.close());
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/my-topic`,
    next: () =>
      new Promise<string>((resolve) => {
        const body = bodies.shift();
        if (body !== undefined) resolve(body);
        else waiting.push(resolve);
      }),
  };
}

/** The phone: HTTPS from 127.0.0.3, accepting only the certificate with the printed fingerprint. */
function phone(
  url: string,
  fingerprint: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: target.hostname,
        port: Number(target.port),
        path: target.pathname + target.search,
        method: options.method ?? 'GET',
        localAddress: '127.0.0.3',
        // As a person does on first sight: the certificate is not signed by an authority, so it is
        // accepted only if its fingerprint is the one the terminal printed.
        rejectUnauthorized: false,
        headers: { 'User-Agent': 'phone-test', ...options.headers },
      },
      (res) => {
        const shown = (res.socket as import('node:tls').TLSSocket).getPeerCertificate().fingerprint256;
        if (shown !== fingerprint) {
          res.destroy();
          reject(new Error(`the server showed ${shown}, not the printed ${fingerprint}`));
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

function userConfig(review: Record<string, unknown>): Record<string, string> {
  const home = tempFolder('editgate-config-');
  mkdirSync(join(home, 'editgate'));
  writeFileSync(join(home, 'editgate', 'config.json'), JSON.stringify({ review }));
  return { XDG_CONFIG_HOME: home };
}

describe('editgate review --listen', () => {
  it('serves HTTPS on the address; a change is notified with its link, answered through it once from the phone', async () => {
    const ws = cliWorkspace({ 'app.ts': 'const a = 1;\n' });
    const service = await notificationService();
    const env = userConfig({ notify: { url: service.url } });
    const review = start(['review', ws.root, '--listen', '127.0.0.2:0'], ws, env);
    const [, origin] = await review.waitFor(/Also listening on (https:\/\/127\.0\.0\.2:\d+) \(HTTPS only\)/);
    const [, fingerprint] = await review.waitFor(/Certificate SHA-256 fingerprint: ([0-9A-F:]{95})\n/);
    await review.waitFor(/made by editgate just now, kept in .*127\.0\.0\.2\.cert\.pem/);

    const edit = start(['edit', 'app.ts', '--old', 'a = 1', '--new', 'a = 2', '--approve', 'web'], ws, env);
    const notified = await service.next();
    expect(notified).toMatch(/^app\.ts \+1 -1\nasked by editgate edit/);
    expect(notified).not.toContain('const a');
    const link = /Open to answer \(once, within 15 min\): (\S+)$/.exec(notified)![1]!;
    expect(link.startsWith(`${origin}/?token=`)).toBe(true);
    // The terminal shows the same link, with its QR code.
    await review.waitFor(
      new RegExp(
        `Open it on your phone \\(once, within 15 min\\): ${link.replace(/[.?]/g, '\\$&')}\\n[ █▀▄]+\\n`,
      ),
    );

    const signedIn = await phone(link, fingerprint!, { headers: { Accept: 'application/json' } });
    expect(signedIn.status).toBe(200);
    const cookie = String(signedIn.headers['set-cookie']).split(';')[0]!;
    const nonce = JSON.parse(signedIn.body).nonce as string;
    const asPage = { Cookie: cookie, 'X-Editgate-Nonce': nonce };
    const { changes } = JSON.parse(
      (await phone(`${origin}/api/changes`, fingerprint!, { headers: asPage })).body,
    );
    expect(changes).toHaveLength(1);
    const decided = await phone(`${origin}/api/changes/${changes[0].id}/decision`, fingerprint!, {
      method: 'POST',
      headers: { ...asPage, Origin: origin!, 'Content-Type': 'application/json' },
      body: JSON.stringify({ hash: changes[0].hash, decision: 'once' }),
    });
    expect(decided.status).toBe(200);
    expect(await edit.exited).toBe(0);
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 2;\n');
    // Spent: the link from the notification (or the QR code) does not open anything again.
    const again = await phone(link, fingerprint!);
    expect(again.status).toBe(410);

    process.kill(review.child.pid!, 'SIGINT');
    expect(await review.exited).toBe(0);
  });

  it('a change no one answers in the configured time is refused, not allowed', async () => {
    const ws = cliWorkspace({ 'app.ts': 'const a = 1;\n' });
    const env = userConfig({ answerTimeoutMinutes: 0.01 });
    const review = start(['review', ws.root], ws, env);
    await review.waitFor(/A change no one answers within 0\.01 minute\(s\) is refused/);
    await review.waitFor(/Review page for/);
    const edit = start(['edit', 'app.ts', '--old', 'a = 1', '--new', 'a = 2', '--approve', 'web'], ws, env);
    expect(await edit.exited).not.toBe(0);
    expect(edit.output()).toContain(
      'DENIED_NO_APPROVER: edit_file on app.ts needs approval, and no one could be asked (no one answered it on the review page within 600 ms)',
    );
    expect(readFileSync(join(ws.root, 'app.ts'), 'utf8')).toBe('const a = 1;\n');
    process.kill(review.child.pid!, 'SIGINT');
    await review.exited;
  });

  it.each([
    [
      ['--listen', '0.0.0.0:8443'],
      'that is every interface of this machine; name the one your phone reaches',
    ],
    [['--listen', 'http://192.168.1.20'], 'without a scheme'],
    [['--listen', '127.0.0.2:70000'], 'the port is not a number up to 65535'],
    [
      ['--listen', '127.0.0.2:0', '--tls-cert', '/nonexistent/cert.pem', '--tls-key', '/nonexistent/key.pem'],
      'cannot read --tls-cert /nonexistent/cert.pem (ENOENT)',
    ],
    [['--listen', '127.0.0.2:0', '--tls-cert', '/etc/hostname'], '--tls-cert and --tls-key go together'],
    [['--tls-cert', 'a.pem', '--tls-key', 'b.pem'], 'are for --listen ADDRESS[:PORT]'],
  ])('refuses %j, saying what to give (exit 2)', async (args, message) => {
    const ws = cliWorkspace();
    const run = await runCli(['review', ...args], { cwd: ws.root, stateDir: ws.stateDir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it('refuses an address that is not this machine\'s, and bad "review" settings in the user config', async () => {
    const ws = cliWorkspace();
    const away = await runCli(['review', '--listen', '192.0.2.77:0'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
    });
    expect(away.code).toBe(1);
    expect(away.stderr).toContain('192.0.2.77 is not an address of this machine');
    const config = await runCli(['review'], {
      cwd: ws.root,
      stateDir: ws.stateDir,
      env: userConfig({ notify: { command: 'notify-send hi' } }),
    });
    expect(config.code).toBe(2);
    expect(config.stderr).toContain('review.notify');
  });
});
