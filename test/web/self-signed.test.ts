import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeSelfSignedCertificate } from '../../src/web/self-signed.js';

describe('makeSelfSignedCertificate', () => {
  it.each([
    ['127.0.0.2', 'IP Address:127.0.0.2'],
    ['192.168.1.20', 'IP Address:192.168.1.20'],
    ['fe80::1', 'IP Address:FE80:0:0:0:0:0:0:1'],
    ['box.example.ts.net', 'DNS:box.example.ts.net'],
  ])('makes a certificate Node and OpenSSL read, for %s only', (name, altName) => {
    const made = makeSelfSignedCertificate(name);
    const cert = new X509Certificate(made.cert);
    expect(cert.subjectAltName).toBe(altName);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(made.key))).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    if (altName.startsWith('DNS')) expect(cert.checkHost(name)).toBe(name);
    else expect(cert.checkIP(name)).toBe(name);
    expect(cert.checkIP('10.9.9.9')).toBeUndefined();
    const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: made.cert }).toString();
    expect(text).toContain('CA:FALSE');
    expect(text).toContain('TLS Web Server Authentication');
    expect(text).toContain('ecdsa-with-SHA256');
  });

  it('lasts the days asked, from a minute back', () => {
    const now = new Date('2026-12-01T12:00:00Z');
    const cert = new X509Certificate(makeSelfSignedCertificate('10.0.0.1', { now, days: 30 }).cert);
    expect(new Date(cert.validFrom).toISOString()).toBe('2026-12-01T11:59:00.000Z');
    expect(new Date(cert.validTo).toISOString()).toBe('2026-12-31T12:00:00.000Z');
  });

  it('writes a date after 2049 as GeneralizedTime', () => {
    const cert = new X509Certificate(
      makeSelfSignedCertificate('10.0.0.1', { now: new Date('2049-12-01T00:00:00Z'), days: 60 }).cert,
    );
    expect(new Date(cert.validTo).getUTCFullYear()).toBe(2050);
  });
});
