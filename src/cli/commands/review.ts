// `editgate review [ROOT]`: serve the web review page for a root, alone, until stopped. Other editgate
// processes working on the root with --approve web (edit, write, lines, apply, mcp) find it through its
// discovery file and send their changes to it, so one browser tab reviews them all.
import { lookup } from 'node:dns/promises';
import { stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadUserConfig, userConfigPath } from '../../agent/providers/user-config.js';
import { isWildcard, type ListenAddress, parseListenAddress } from '../../core/listen-host.js';
import { discoveryPath, findReview, publishReview, type ReviewDiscovery } from '../../web/discovery.js';
import { openReviewInBrowser } from '../../web/open-browser.js';
import { proveReview, requestSignInLink } from '../../web/remote-review.js';
import { whenIdle } from '../../web/review-idle.js';
import { startReviewServer } from '../../web/review-server.js';
import { parseReviewSettings, type ReviewSettings } from '../../web/review-settings.js';
import { CHANGE_LINK_TTL_MS } from '../../web/sign-in-links.js';
import {
  keptTlsIdentity,
  type TlsIdentity,
  TlsIdentityError,
  userTlsIdentity,
} from '../../web/tls-identity.js';
import { announceChanges } from '../review-announce.js';
import { defaultStateDir } from '../state-dir.js';
import { asksForSession, runSessionReview, SESSION_HELP, SESSION_USAGE } from './review-session.js';

export const HELP = `Usage: editgate review [ROOT] [--port PORT] [--open] [--idle-exit MINUTES]
                       [--listen ADDRESS[:PORT] [--tls-cert FILE --tls-key FILE]]
       editgate review [ROOT] --link
${SESSION_USAGE}

Serve the web review page for ROOT (default: the current folder) until stopped (Ctrl-C). Every editgate
process run with --approve web on this root (editgate edit, write, lines, apply, mcp; or "approve": "web"
in editgate.config.json) sends its changes here instead of opening a page of its own: each change waits on
the page for your decision (allow once, this file or all edits for the session, deny with a reason, or
allow your own edited version), and the terminal that asked stays live too: the first answer counts.

How processes find the page: it writes STATE/review/KEY.json, where STATE is your state folder
(~/.local/state/editgate; EDITGATE_STATE_DIR overrides it) and KEY a hash of
the root's real path. The file holds the port, the process id, the token changes are sent with and a key
the page proves itself with; it is readable by you alone (mode 0600, in a 0700 folder). A file owned by
someone else, readable by others or in a folder others can change is ignored, and so is a page that does
not prove it holds the file's key (another program on that port): nothing is sent to it. The file is
removed when the page stops (Ctrl-C, kill, the terminal closing).

The page listens on 127.0.0.1 only, on a free port (or --port). Open the link printed below: its token
signs one browser in, once (a second use is refused), and the address bar then shows the page without it.
For another browser, editgate review --link prints a new link.

To answer from your phone (docs/guides/phone.md): --listen ADDRESS[:PORT] also serves the page on that address
of this machine (your LAN's, or your VPN's), over HTTPS only, with your certificate (--tls-cert/--tls-key)
or one editgate makes and keeps in the state folder (its SHA-256 fingerprint is printed: check it in the
phone's browser). Each change that arrives then gets a link of its own, printed with a QR code: it opens
that change alone, once, for one answer (allow once or deny), within 15 minutes. Set "review" in
${userConfigPath()} for the same without options, for notifications ("notify": a command or a URL)
and for a time after which an unanswered change is refused ("answerTimeoutMinutes").

Options:
  --port PORT   listen on this port (default: one the system picks)
  --listen ADDRESS[:PORT]
                also serve on this address over HTTPS (not 0.0.0.0: name the one interface)
  --tls-cert FILE, --tls-key FILE
                the certificate (PEM) and its key for --listen (default: one editgate makes)
  --open        open the page in your browser ($BROWSER, or the system's opener), through a file only you
                can read: the link never shows on a command line
  --link        print a new sign-in link for the page already running for ROOT, and exit
  --idle-exit MINUTES
                stop once, for MINUTES, no change has waited, arrived or been answered and no page has
                been open in a browser (a page a hook starts for you uses 15)
  -h, --help    show this help

${SESSION_HELP}`;

/** The review page running for the root, when its discovery file is trusted and its server proves itself. */
async function runningReview(stateDir: string, root: string): Promise<ReviewDiscovery | undefined> {
  const existing = await findReview(stateDir, root);
  if ('refused' in existing) process.stderr.write(`editgate review: ${existing.refused}.\n`);
  if ('note' in existing && existing.note) process.stderr.write(`editgate review: ${existing.note}.\n`);
  if (!('found' in existing)) return undefined;
  const proven = await proveReview(existing.found);
  if ('proven' in proven) return existing.found;
  process.stderr.write(`editgate review: ${proven.refused}; nothing was sent to it.\n`);
  return undefined;
}

export async function run(args: string[]): Promise<number> {
  if (asksForSession(args) && !args.includes('--help') && !args.includes('-h')) return runSessionReview(args);
  let values: {
    port?: string;
    open?: boolean;
    link?: boolean;
    help?: boolean;
    'idle-exit'?: string;
    listen?: string;
    'tls-cert'?: string;
    'tls-key'?: string;
  };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        open: { type: 'boolean' },
        link: { type: 'boolean' },
        'idle-exit': { type: 'string' },
        listen: { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
    if (positionals.length > 1) throw new Error(`one ROOT at a time (got ${positionals.join(', ')})`);
    if (values.port !== undefined && !/^\d{1,5}$/.test(values.port)) {
      throw new Error(`--port must be a port number (got "${values.port}")`);
    }
    const idle = values['idle-exit'];
    if (idle !== undefined && !(/^\d{1,6}(\.\d+)?$/.test(idle) && Number(idle) > 0)) {
      throw new Error(`--idle-exit takes minutes, a number above 0 (got "${idle}")`);
    }
  } catch (error) {
    process.stderr.write(
      `editgate review: ${(error as Error).message}. Run editgate review --help for its options.\n`,
    );
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const root = resolve(positionals[0] ?? process.cwd());
  if (
    !(await stat(root).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  ) {
    process.stderr.write(`editgate review: ${root} is not an existing folder.\n`);
    return 2;
  }
  let settings: ReviewSettings;
  let listenAddress: ListenAddress | undefined;
  try {
    settings = parseReviewSettings((await loadUserConfig()).review, userConfigPath());
    listenAddress = values.listen !== undefined ? parseListenAddress(values.listen) : settings.listen;
    const tlsCert = values['tls-cert'] ?? settings.tlsCert;
    const tlsKey = values['tls-key'] ?? settings.tlsKey;
    if ((tlsCert === undefined) !== (tlsKey === undefined))
      throw new Error('--tls-cert and --tls-key go together: give the certificate and its key');
    if (tlsCert !== undefined && !listenAddress)
      throw new Error(
        '--tls-cert and --tls-key are for --listen ADDRESS[:PORT] (127.0.0.1 is served over plain HTTP)',
      );
    settings = { ...settings, ...(tlsCert ? { tlsCert } : {}), ...(tlsKey ? { tlsKey } : {}) };
  } catch (error) {
    // A config file that is not right (UserConfigError, ReviewSettingsError), a bad --listen
    // (ListenAddressError), options that do not go together: each says what to give instead.
    process.stderr.write(`editgate review: ${(error as Error).message}.\n`);
    return 2;
  }
  const stateDir = defaultStateDir();
  let listen: { address: ListenAddress; tls: TlsIdentity } | undefined;
  if (listenAddress) {
    try {
      listen = await listenSetup(listenAddress, settings, stateDir);
    } catch (error) {
      process.stderr.write(`editgate review: ${(error as Error).message}.\n`);
      return 2;
    }
  }
  const running = await runningReview(stateDir, root);
  if (values.link) {
    if (!running) {
      process.stderr.write(
        `editgate review: no review page is running for ${root}; start one with editgate review.\n`,
      );
      return 1;
    }
    process.stdout.write(`${await requestSignInLink(running)}\n`);
    return 0;
  }
  if (running) {
    process.stderr.write(
      `editgate review: a review page for ${root} is already running (pid ${running.pid}, http://127.0.0.1:${running.port}/); editgate review --link prints a new sign-in link for it.\n`,
    );
    return 1;
  }

  const linkTtlMs = settings.linkMinutes !== undefined ? settings.linkMinutes * 60_000 : CHANGE_LINK_TTL_MS;
  const server = await startReviewServer({
    root,
    acceptSubmissions: true,
    ...(values.port !== undefined ? { port: Number(values.port) } : {}),
    ...(listen ? { listen } : {}),
    changeLinkTtlMs: linkTtlMs,
    ...(settings.answerTimeoutMinutes !== undefined
      ? { answerTimeoutMs: Math.round(settings.answerTimeoutMinutes * 60_000) }
      : {}),
  }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    const hint =
      code === 'EADDRNOTAVAIL' && listen
        ? ` (${listen.address.host} is not an address of this machine: "ip addr" lists them; use your LAN's or your VPN's)`
        : code === 'EADDRINUSE'
          ? ' (another program listens there: give another port)'
          : '';
    process.stderr.write(
      `editgate review: cannot listen: ${error instanceof Error ? error.message : String(error)}${hint}\n`,
    );
    return undefined;
  });
  if (!server) return 1;
  const unpublish = await publishReview(stateDir, {
    root,
    pid: process.pid,
    port: server.port,
    submitToken: server.submitToken!,
    serverKey: server.serverKey!,
  }).catch(async (error: unknown) => {
    process.stderr.write(`editgate review: ${error instanceof Error ? error.message : String(error)}.\n`);
    await server.close();
    return undefined;
  });
  if (!unpublish) return 1;
  process.stdout.write(
    `Review page for ${root}: ${server.url}\nChanges from editgate processes run with --approve web on this root appear there (discovery file ${await discoveryPath(stateDir, root)}). Ctrl-C stops.\n`,
  );
  if (server.listenOrigin && server.tls) {
    const { source } = server.tls;
    process.stdout.write(
      `Also listening on ${server.listenOrigin} (HTTPS only) for your phone: each change that arrives gets a link of its own, printed here with a QR code${settings.notify ? ' and sent as your "notify" setting says' : ''}.\nCertificate SHA-256 fingerprint: ${server.tls.fingerprint}\n${'user' in source ? `(your certificate, ${source.user.cert})` : `(made by editgate${source.made ? ' just now' : ''}, kept in ${source.kept}: the first time, check that your phone's browser shows this fingerprint before you go on)`}\n`,
    );
  } else if (settings.notify) {
    process.stdout.write(
      'Each change that arrives is sent as your "notify" setting says, with a link to it.\n',
    );
  }
  if (settings.answerTimeoutMinutes !== undefined)
    process.stdout.write(
      `A change no one answers within ${settings.answerTimeoutMinutes} minute(s) is refused (never allowed).\n`,
    );
  const stopAnnouncing = announceChanges({
    server,
    linkTtlMs,
    ...(settings.notify ? { notify: settings.notify } : {}),
    printLinks: server.listenOrigin !== undefined,
    color: process.stdout.isTTY === true && !process.env.NO_COLOR,
    out: (text) => process.stdout.write(text),
    warn: (text) => process.stderr.write(text),
  });
  if (values.open) {
    const failed = await openReviewInBrowser(server, stateDir);
    if (failed) process.stderr.write(`editgate review: ${failed}; open the link above yourself.\n`);
  }

  // Every way the page is told to stop removes the discovery file: Ctrl-C, kill, and the terminal closing
  // (SIGHUP), and with --idle-exit its having nothing to do. An uncaught error ends the process through its
  // exit hook, which removes it too.
  const idleMinutes = values['idle-exit'] === undefined ? undefined : Number(values['idle-exit']);
  const idle = idleMinutes === undefined ? undefined : whenIdle(server, idleMinutes * 60_000);
  await new Promise<void>((done) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, done);
    idle?.idle.then(() => {
      process.stdout.write(
        `Nothing waited and no page was open for ${idleMinutes} minute(s): the review page stops (--idle-exit).\n`,
      );
      done();
    });
  });
  idle?.stop();
  stopAnnouncing();
  await unpublish();
  await server.close();
  return 0;
}

/**
 * The listening address made ready: a DNS name resolved to the address it is bound on (which must be one
 * of this machine's, not every interface), and the certificate: the person's, checked, or the one editgate
 * keeps for that name.
 */
async function listenSetup(
  address: ListenAddress,
  settings: ReviewSettings,
  stateDir: string,
): Promise<{ address: ListenAddress; tls: TlsIdentity }> {
  let host = address.host;
  if (!isIP(host)) {
    const found = await lookup(host).catch((error: NodeJS.ErrnoException) => {
      throw new Error(
        `--listen ${address.host}: the name does not resolve (${error.code ?? error.message}); give an IP address of this machine, or a name that resolves to one`,
      );
    });
    if (isWildcard(found.address))
      throw new Error(
        `--listen ${address.host} resolves to ${found.address}, every interface; name the one your phone reaches`,
      );
    host = found.address;
  }
  const name = address.authorityName.replace(/^\[|\]$/g, '');
  try {
    const tls =
      settings.tlsCert && settings.tlsKey
        ? await userTlsIdentity(settings.tlsCert, settings.tlsKey, name)
        : await keptTlsIdentity(stateDir, name);
    return { address: { ...address, host }, tls };
  } catch (error) {
    if (error instanceof TlsIdentityError) throw error;
    throw new Error(`cannot make the certificate for ${name}: ${(error as Error).message}`);
  }
}
