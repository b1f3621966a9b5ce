/**
 * A self-signed TLS certificate for the review page's listening address, made with Node's own crypto: an
 * ECDSA P-256 key (crypto.generateKeyPairSync) and an X.509 v3 certificate whose few DER fields are written
 * here and signed with crypto.sign. Node can parse and check certificates (X509Certificate) but has no call
 * that makes one, and this one needs nothing a library would add: no chain, no CA, one name.
 *
 * The certificate names the address the page listens on (subjectAltName: the IP address, or the DNS name),
 * is for a server only (extKeyUsage serverAuth, basicConstraints CA:false), and lasts CERT_DAYS. A browser
 * does not trust it (no authority signed it): the person checks its SHA-256 fingerprint, which
 * `editgate review --listen` prints, against the one the browser shows, once.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';

/** How long a made certificate lasts (a browser allows at most 398 days to a trusted one; this one is
 * pinned by the person, but a year keeps to the same habit). */
export const CERT_DAYS = 365;

export interface MadeCertificate {
  /** PEM. */
  cert: string;
  /** PEM, PKCS#8: private, kept 0600. */
  key: string;
}

/** A new key and a certificate for `name` (an IP address or a DNS name), valid from now for `days`. */
export function makeSelfSignedCertificate(
  name: string,
  options: { days?: number; now?: Date } = {},
): MadeCertificate {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const now = options.now ?? new Date();
  // A minute back, for a phone whose clock runs a little behind.
  const notBefore = new Date(now.getTime() - 60_000);
  const notAfter = new Date(now.getTime() + (options.days ?? CERT_DAYS) * 86_400_000);
  const subject = seq(set(seq(oid('2.5.4.3'), utf8('editgate review'))));
  const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x40; // positive, and no leading zero byte needed
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serial),
    ecdsaWithSha256,
    subject,
    seq(time(notBefore), time(notAfter)),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(
      3,
      seq(
        extension('2.5.29.17', seq(generalName(name))), // subjectAltName
        extension('2.5.29.19', seq(), true), // basicConstraints: not a CA
        extension('2.5.29.15', bitString(Buffer.from([0x80]), 7), true), // keyUsage: digitalSignature
        extension('2.5.29.37', seq(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage: serverAuth
      ),
    ),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, ecdsaWithSha256, bitString(signature));
  return {
    cert: pem('CERTIFICATE', der),
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  };
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

// DER, the few types a certificate needs.

function tlv(tag: number, content: Buffer): Buffer {
  const length = content.length;
  let head: Buffer;
  if (length < 0x80) head = Buffer.from([tag, length]);
  else {
    const bytes: number[] = [];
    for (let rest = length; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
    head = Buffer.from([tag, 0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([head, content]);
}

function seq(...parts: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(parts));
}

function set(...parts: Buffer[]): Buffer {
  return tlv(0x31, Buffer.concat(parts));
}

function explicit(tagNumber: number, content: Buffer): Buffer {
  return tlv(0xa0 | tagNumber, content);
}

function integer(bytes: Buffer): Buffer {
  return tlv(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

function bitString(bytes: Buffer, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), bytes]));
}

function utf8(text: string): Buffer {
  return tlv(0x0c, Buffer.from(text, 'utf8'));
}

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first! * 40 + second!];
  for (const arc of rest) {
    const groups: number[] = [];
    let value = arc;
    do {
      groups.unshift(value & 0x7f);
      value = Math.floor(value / 128);
    } while (value > 0);
    bytes.push(...groups.map((group, index) => (index < groups.length - 1 ? group | 0x80 : group)));
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime through 2049, GeneralizedTime after (RFC 5280 4.1.2.5). */
function time(date: Date): Buffer {
  const iso = date.toISOString(); // 2026-12-01T13:28:29.000Z
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii'))
    : tlv(0x18, Buffer.from(digits, 'ascii'));
}

function extension(id: string, value: Buffer, critical = false): Buffer {
  return seq(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}

/** iPAddress [7] for an address, dNSName [2] for a name. */
function generalName(name: string): Buffer {
  const family = isIP(name);
  if (family === 4) return tlv(0x87, Buffer.from(name.split('.').map(Number)));
  if (family === 6) return tlv(0x87, ipv6Bytes(name));
  return tlv(0x82, Buffer.from(name, 'ascii'));
}

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  let left = groups(head);
  let right = tail === undefined ? [] : groups(tail);
  // An embedded IPv4 tail (::ffff:1.2.3.4) is two groups.
  const expand = (list: string[]) =>
    list.flatMap((group) => {
      if (!group.includes('.')) return [group];
      const [a, b, c, d] = group.split('.').map(Number);
      return [((a! << 8) | b!).toString(16), ((c! << 8) | d!).toString(16)];
    });
  left = expand(left);
  right = expand(right);
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  const all = [...left, ...fill, ...right];
  const bytes = Buffer.alloc(16);
  for (const [index, group] of all.entries()) bytes.writeUInt16BE(Number.parseInt(group, 16), index * 2);
  return bytes;
}
