/**
 * Which Host and Origin headers name a local server that listens on 127.0.0.1: the one rule the MCP server's
 * HTTP transport (mcp/http-guard.ts) and the review page (web/request-guard.ts) both apply.
 *
 * A web page whose DNS name an attacker rebinds to 127.0.0.1 reaches the server, but its browser still sends
 * the page's own name in Host; so Host must be one of the two names that lead here, `127.0.0.1` or
 * `localhost` (any case: host names are case-insensitive), with this server's port (none means 80). The
 * match is exact, not a URL parse: `127.0.0.1.evil.example`, `user@127.0.0.1`, `2130706433` and the
 * IPv4-mapped `[::ffff:127.0.0.1]` are refused, and so is `[::1]`, since a server bound to 127.0.0.1 cannot be
 * reached through the IPv6 loopback address: a Host that names it was not written by a client that
 * connected here.
 */

/** The names a client that reached 127.0.0.1 writes in Host. */
const NAME = '(127\\.0\\.0\\.1|localhost)';
const PORT = '(?::(\\d{1,5}))?';
const HOST = new RegExp(`^${NAME}${PORT}$`, 'i');
const ORIGIN = new RegExp(`^(https?)://${NAME}${PORT}$`, 'i');

export interface LoopbackAuthority {
  readonly scheme: 'http' | 'https';
  /** Lower case. */
  readonly name: '127.0.0.1' | 'localhost';
  /** The port, or the scheme's default when none is written. */
  readonly port: number;
}

function authority(scheme: string, name: string, port: string | undefined): LoopbackAuthority {
  const lowerScheme = scheme.toLowerCase() === 'https' ? 'https' : 'http';
  return {
    scheme: lowerScheme,
    name: name.toLowerCase() === 'localhost' ? 'localhost' : '127.0.0.1',
    port: port === undefined ? (lowerScheme === 'https' ? 443 : 80) : Number(port),
  };
}

/** A Host header that names the loopback interface (any port), or undefined. */
export function loopbackHost(host: string | undefined): LoopbackAuthority | undefined {
  const match = HOST.exec(host ?? '');
  return match ? authority('http', match[1]!, match[2]) : undefined;
}

/** An Origin header that is a page served from the loopback interface (any port), or undefined. */
export function loopbackOrigin(origin: string | undefined): LoopbackAuthority | undefined {
  const match = ORIGIN.exec(origin ?? '');
  return match ? authority(match[1]!, match[2]!, match[3]) : undefined;
}

/** Host names this server: a loopback name and the port it listens on. */
export function hostNamesThisServer(host: string | undefined, port: number): boolean {
  return loopbackHost(host)?.port === port;
}

/**
 * Origin is the page this server served, at the Host the request names (the browser's page was loaded from
 * that address; `localhost` and `127.0.0.1` are different origins, each with its own cookies).
 */
export function originIsThisPage(origin: string | undefined, host: string | undefined): boolean {
  const page = loopbackOrigin(origin);
  const here = loopbackHost(host);
  return (
    page !== undefined &&
    here !== undefined &&
    page.scheme === 'http' &&
    page.name === here.name &&
    page.port === here.port
  );
}
