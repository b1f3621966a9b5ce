/**
 * The Host headers a local server on 127.0.0.1 accepts and refuses (core/loopback-host.ts): one table, run
 * against the rule itself, the MCP server's HTTP transport and the review page, so the two servers cannot
 * drift apart again.
 */
export interface HostCase {
  host: string;
  accepted: boolean;
  why: string;
}

export function hostCases(port: number): HostCase[] {
  return [
    { host: `127.0.0.1:${port}`, accepted: true, why: 'the address the server listens on' },
    { host: `localhost:${port}`, accepted: true, why: 'the name of that address' },
    { host: `LOCALHOST:${port}`, accepted: true, why: 'host names are case-insensitive' },
    { host: `LocalHost:${port}`, accepted: true, why: 'host names are case-insensitive' },
    { host: '127.0.0.1', accepted: false, why: 'no port means 80, not this server' },
    { host: 'localhost', accepted: false, why: 'no port means 80, not this server' },
    { host: `127.0.0.1:${port + 1}`, accepted: false, why: 'another port is another server' },
    { host: `[::1]:${port}`, accepted: false, why: 'the server is not on the IPv6 loopback' },
    { host: '[::1]', accepted: false, why: 'the server is not on the IPv6 loopback' },
    { host: `evil.example:${port}`, accepted: false, why: 'a DNS-rebinding name' },
    { host: `127.0.0.1.evil.example:${port}`, accepted: false, why: 'a name that starts like the address' },
    { host: `[::ffff:127.0.0.1]:${port}`, accepted: false, why: 'IPv4-mapped IPv6' },
    { host: `[::ffff:7f00:1]:${port}`, accepted: false, why: 'IPv4-mapped IPv6, in hex' },
    { host: `2130706433:${port}`, accepted: false, why: '127.0.0.1 as one number' },
    { host: `user@127.0.0.1:${port}`, accepted: false, why: 'user info is not a host' },
    {
      host: `localhost.:${port}`,
      accepted: false,
      why: 'a fully qualified name a resolver may send elsewhere',
    },
    { host: `127.0.0.1:${port}/x`, accepted: false, why: 'a path is not a host' },
  ];
}
