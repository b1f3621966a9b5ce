/**
 * The certificate and key the review page serves HTTPS with on its listening address: the person's own
 * (`--tls-cert/--tls-key`, e.g. from `tailscale cert` or their own authority), or one editgate makes
 * (self-signed.ts) and keeps in the state folder, STATE/review/tls/NAME.{cert,key}.pem (the key mode 0600,
 * the folder 0700), so the fingerprint a phone was told to trust stays the same between runs. A kept one is
 * made again when it no longer names the address, expires within CERT_RENEW_DAYS, or its files are not the
 * user's alone. Either way the person is told the SHA-256 fingerprint to check in the browser.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { lstat, open, readFile, rename } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { ensurePrivateFolder } from '../workspace/private-folder.js';
import { makeSelfSignedCertificate } from './self-signed.js';

export interface TlsIdentity {
  /** PEM. */
  readonly cert: string;
  readonly key: string;
  /** SHA-256, as browsers show it (AB:CD:...). */
  readonly fingerprint: string;
  /** Where it came from: the person's files, or the one editgate keeps (`made`: made just now). */
  readonly source: { user: { cert: string; key: string } } | { kept: string; made: boolean };
  readonly validTo: Date;
}

/** A refusal that says which file and what to do: the review command prints it and exits 2. */
export class TlsIdentityError extends Error {}

/** A kept certificate this close to its end is made again. */
export const CERT_RENEW_DAYS = 30;

/** The person's certificate and key, checked: readable, PEM, a pair, in date, naming `name`. */
export async function userTlsIdentity(certPath: string, keyPath: string, name: string): Promise<TlsIdentity> {
  const certText = await readText(certPath, '--tls-cert', 'the certificate (PEM)');
  const keyText = await readText(keyPath, '--tls-key', 'its private key (PEM)');
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certText);
  } catch (error) {
    throw new TlsIdentityError(
      `--tls-cert ${certPath} is not a PEM certificate (${(error as Error).message}); give the server certificate's file (the "fullchain" file of most tools)`,
    );
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(keyText);
  } catch (error) {
    throw new TlsIdentityError(
      `--tls-key ${keyPath} is not a PEM private key (${(error as Error).message}); give the key that belongs to --tls-cert`,
    );
  }
  if (!cert.checkPrivateKey(key))
    throw new TlsIdentityError(
      `--tls-key ${keyPath} is not the key of --tls-cert ${certPath}; give the pair`,
    );
  const validTo = new Date(cert.validTo);
  if (validTo.getTime() < Date.now())
    throw new TlsIdentityError(
      `--tls-cert ${certPath} expired on ${validTo.toISOString()}; renew it (or leave out --tls-cert/--tls-key and editgate makes one)`,
    );
  if (!names(cert, name))
    throw new TlsIdentityError(
      `--tls-cert ${certPath} is for ${cert.subjectAltName ?? cert.subject}, not ${name}: a browser would refuse it. Listen on a name it covers (--listen NAME:PORT), or leave out --tls-cert/--tls-key and editgate makes one for ${name}`,
    );
  return {
    cert: certText,
    key: keyText,
    fingerprint: cert.fingerprint256,
    source: { user: { cert: certPath, key: keyPath } },
    validTo,
  };
}

/** The certificate editgate keeps for `name` in the state folder, made now when there is none fit to use. */
export async function keptTlsIdentity(
  stateDir: string,
  name: string,
  now = new Date(),
): Promise<TlsIdentity> {
  const folder = join(stateDir, 'review', 'tls');
  await ensurePrivateFolder(folder, 'state');
  const file = name.replace(/[^a-z0-9.-]/gi, '_');
  const certPath = join(folder, `${file}.cert.pem`);
  const keyPath = join(folder, `${file}.key.pem`);
  const kept = await readKept(certPath, keyPath, name, now);
  if (kept) return { ...kept, source: { kept: certPath, made: false } };
  const made = makeSelfSignedCertificate(name, { now });
  await writePrivate(keyPath, made.key);
  await writePrivate(certPath, made.cert);
  const cert = new X509Certificate(made.cert);
  return {
    ...made,
    fingerprint: cert.fingerprint256,
    source: { kept: certPath, made: true },
    validTo: new Date(cert.validTo),
  };
}

async function readKept(
  certPath: string,
  keyPath: string,
  name: string,
  now: Date,
): Promise<Omit<TlsIdentity, 'source'> | undefined> {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  for (const path of [certPath, keyPath]) {
    const info = await lstat(path).catch(() => undefined);
    if (!info?.isFile() || (uid !== undefined && info.uid !== uid) || (info.mode & 0o077) !== 0)
      return undefined;
  }
  try {
    const certText = await readFile(certPath, 'utf8');
    const keyText = await readFile(keyPath, 'utf8');
    const cert = new X509Certificate(certText);
    const validTo = new Date(cert.validTo);
    if (!cert.checkPrivateKey(createPrivateKey(keyText))) return undefined;
    if (validTo.getTime() - now.getTime() < CERT_RENEW_DAYS * 86_400_000) return undefined;
    if (!names(cert, name)) return undefined;
    return { cert: certText, key: keyText, fingerprint: cert.fingerprint256, validTo };
  } catch {
    return undefined;
  }
}

function names(cert: X509Certificate, name: string): boolean {
  return isIP(name) ? cert.checkIP(name) !== undefined : cert.checkHost(name) !== undefined;
}

async function readText(path: string, option: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new TlsIdentityError(
      `cannot read ${option} ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give the path of ${what}`,
    );
  }
}

/** Written whole, 0600, through a temp file: a reader never sees half a key. */
async function writePrivate(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}
