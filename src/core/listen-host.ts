/**
 * The review page's listening address (`editgate review --listen ADDRESS[:PORT]`) and which Host and Origin
 * headers name it: the one deliberate widening of core/loopback-host.ts's rule, for that one address.
 *
 * ADDRESS is an IP address of this machine (IPv6 in brackets when a port follows) or a DNS name that
 * resolves to one. The wildcard addresses (0.0.0.0, ::) are refused: the person names the one interface a
 * phone reaches (the LAN's, the VPN's), so the page is not served on every network the machine is on, and
 * the links can name an address that works. A request's Host must be exactly that address and port (the
 * port may be left out only when it is 443, as browsers do), its Origin `https://` with the same: a page
 * whose DNS name was rebound to this address still sends its own name.
 */
import { isIP } from 'node:net';

export interface ListenAddress {
  /** The IP address or DNS name as a URL writes it: lower case, IPv6 in brackets. */
  readonly authorityName: string;
  /** The IP address or DNS name to bind (IPv6 without brackets). */
  readonly host: string;
  /** 0: a free port the system picks. */
  readonly port: number;
}

export class ListenAddressError extends Error {}

const NAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** `ADDRESS[:PORT]`, checked; throws ListenAddressError saying what is wrong and what to give. */
export function parseListenAddress(text: string): ListenAddress {
  const given = text.trim();
  const fail = (why: string) =>
    new ListenAddressError(
      `--listen ${JSON.stringify(text)}: ${why}. Give ADDRESS[:PORT]: an address of this machine that your phone reaches (e.g. 192.168.1.20:8443, [fd00::5]:8443, or a VPN name such as mybox.tail1234.ts.net)`,
    );
  if (given.includes('://'))
    throw fail('give the address alone, without a scheme (the page on it is always https://)');
  let host: string;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(given);
  if (bracketed) {
    host = bracketed[1]!;
    portText = bracketed[2];
    if (isIP(host) !== 6) throw fail('the address in brackets is not an IPv6 address');
  } else if (isIP(given) === 6) {
    host = given;
  } else {
    const colon = given.lastIndexOf(':');
    host = colon < 0 ? given : given.slice(0, colon);
    portText = colon < 0 ? undefined : given.slice(colon + 1);
    if (host.includes(':')) throw fail('an IPv6 address with a port is written in brackets: [ADDRESS]:PORT');
  }
  host = host.toLowerCase();
  if (host === '') throw fail('no address');
  if (isIP(host) === 0 && !NAME.test(host)) throw fail('that is neither an IP address nor a host name');
  if (isWildcard(host))
    throw fail('that is every interface of this machine; name the one your phone reaches');
  let port = 0;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535)
      throw fail('the port is not a number up to 65535');
    port = Number(portText);
  }
  return { host, port, authorityName: isIP(host) === 6 ? `[${host}]` : host };
}

/** 0.0.0.0, ::, and their other spellings. */
export function isWildcard(address: string): boolean {
  if (isIP(address) === 4) return address.split('.').every((part) => Number(part) === 0);
  if (isIP(address) === 6) return /^[0:]+$/.test(address);
  return false;
}

/** Host names the listening address on `port` (the port it got). */
export function hostNamesListenAddress(
  host: string | undefined,
  listen: ListenAddress,
  port: number,
): boolean {
  if (host === undefined) return false;
  const lower = host.toLowerCase();
  return lower === `${listen.authorityName}:${port}` || (port === 443 && lower === listen.authorityName);
}

/** Origin is a page served over HTTPS from the listening address on `port`. */
export function originIsListenAddress(
  origin: string | undefined,
  listen: ListenAddress,
  port: number,
): boolean {
  if (origin === undefined || !/^https:\/\//i.test(origin)) return false;
  return hostNamesListenAddress(origin.slice('https://'.length), listen, port);
}
