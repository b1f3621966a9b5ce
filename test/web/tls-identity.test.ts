import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeSelfSignedCertificate } from '../../src/web/self-signed.js';
import { keptTlsIdentity, TlsIdentityError, userTlsIdentity } from '../../src/web/tls-identity.js';
import { tempFolder } from '../temp-folder.js';

function files(name = '192.168.1.20', options: { now?: Date; days?: number } = {}) {
  const folder = tempFolder('editgate-tls-');
  const made = makeSelfSignedCertificate(name, options);
  const cert = join(folder, 'cert.pem');
  const key = join(folder, 'key.pem');
  writeFileSync(cert, made.cert);
  writeFileSync(key, made.key, { mode: 0o600 });
  return { folder, cert, key };
}

describe("the person's certificate", () => {
  it('is taken when it is a pair, in date, for the address', async () => {
    const { cert, key } = files();
    const identity = await userTlsIdentity(cert, key, '192.168.1.20');
    expect(identity.source).toEqual({ user: { cert, key } });
    expect(identity.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    // A name's certificate (what `tailscale cert` gives) for that name.
    const named = files('mybox.tail1234.ts.net');
    expect((await userTlsIdentity(named.cert, named.key, 'mybox.tail1234.ts.net')).source).toEqual({
      user: { cert: named.cert, key: named.key },
    });
    await expect(userTlsIdentity(named.cert, named.key, '192.168.1.20')).rejects.toThrow(
      'is for DNS:mybox.tail1234.ts.net, not 192.168.1.20',
    );
  });

  it('is refused, saying what to do, when it cannot be used', async () => {
    const { folder, cert, key } = files();
    const other = files();
    const old = files('192.168.1.20', { now: new Date('2020-01-01T00:00:00Z'), days: 30 });
    const garbage = join(folder, 'garbage.pem');
    writeFileSync(garbage, 'not a certificate');
    const unreadable = join(folder, 'unreadable.pem');
    writeFileSync(unreadable, 'x');
    chmodSync(unreadable, 0);
    const cases: [() => Promise<unknown>, string][] = [
      [() => userTlsIdentity(join(folder, 'missing.pem'), key, '192.168.1.20'), 'cannot read --tls-cert'],
      [() => userTlsIdentity(garbage, key, '192.168.1.20'), 'is not a PEM certificate'],
      [() => userTlsIdentity(cert, garbage, '192.168.1.20'), 'is not a PEM private key'],
      [() => userTlsIdentity(cert, other.key, '192.168.1.20'), 'is not the key of --tls-cert'],
      [() => userTlsIdentity(old.cert, old.key, '192.168.1.20'), 'expired on 2020-01-31'],
      [() => userTlsIdentity(cert, key, '10.0.0.9'), 'not 10.0.0.9: a browser would refuse it'],
    ];
    // Root reads any file: the unreadable case holds only for other users.
    if (process.getuid?.() !== 0)
      cases.push([() => userTlsIdentity(unreadable, key, '192.168.1.20'), 'EACCES']);
    for (const [attempt, message] of cases) {
      await expect(attempt()).rejects.toThrow(TlsIdentityError);
      await expect(attempt()).rejects.toThrow(message);
    }
  });
});

describe('the certificate editgate keeps', () => {
  it('is made again when it nears its end, or when its key file is readable by others', async () => {
    const state = tempFolder('editgate-tls-state-');
    const first = await keptTlsIdentity(state, '10.1.2.3', new Date());
    const soon = new Date(first.validTo.getTime() - 10 * 86_400_000);
    const renewed = await keptTlsIdentity(state, '10.1.2.3', soon);
    expect(renewed.source).toMatchObject({ made: true });
    expect(renewed.fingerprint).not.toBe(first.fingerprint);
    const kept = await keptTlsIdentity(state, '10.1.2.3', soon);
    expect(kept.fingerprint).toBe(renewed.fingerprint);
    chmodSync(join(state, 'review', 'tls', '10.1.2.3.key.pem'), 0o644);
    const remade = await keptTlsIdentity(state, '10.1.2.3', soon);
    expect(remade.source).toMatchObject({ made: true });
  });
});
