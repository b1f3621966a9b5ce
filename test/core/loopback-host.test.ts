import { describe, expect, it } from 'vitest';
import { hostNamesThisServer, loopbackOrigin, originIsThisPage } from '../../src/core/loopback-host.js';
import { hostCases } from './loopback-hosts.js';

describe('which Host names a server on 127.0.0.1', () => {
  it.each(hostCases(3000))('$host: $why', ({ host, accepted }) => {
    expect(hostNamesThisServer(host, 3000)).toBe(accepted);
  });

  it('a missing Host is refused', () => {
    expect(hostNamesThisServer(undefined, 3000)).toBe(false);
    expect(hostNamesThisServer('', 3000)).toBe(false);
  });

  it('a Host without a port names port 80', () => {
    expect(hostNamesThisServer('localhost', 80)).toBe(true);
  });
});

describe('origins', () => {
  it('a loopback origin is a page on 127.0.0.1 or localhost, any port, http or https', () => {
    expect(loopbackOrigin('http://localhost:5173')).toEqual({
      scheme: 'http',
      name: 'localhost',
      port: 5173,
    });
    expect(loopbackOrigin('HTTPS://127.0.0.1')).toEqual({ scheme: 'https', name: '127.0.0.1', port: 443 });
    for (const origin of [
      'null',
      'https://evil.example',
      'https://127.0.0.1.evil.example',
      'http://[::1]:5173',
      'http://localhost:5173/',
      'file://localhost',
      undefined,
    ]) {
      expect(loopbackOrigin(origin), String(origin)).toBeUndefined();
    }
  });

  it("the page's own origin is http, the name and the port of the Host", () => {
    expect(originIsThisPage('http://127.0.0.1:3000', '127.0.0.1:3000')).toBe(true);
    expect(originIsThisPage('http://localhost:3000', 'LOCALHOST:3000')).toBe(true);
    expect(originIsThisPage('http://localhost:3000', '127.0.0.1:3000')).toBe(false);
    expect(originIsThisPage('http://127.0.0.1:3001', '127.0.0.1:3000')).toBe(false);
    expect(originIsThisPage('https://127.0.0.1:3000', '127.0.0.1:3000')).toBe(false);
    expect(originIsThisPage('http://evil.example:3000', 'evil.example:3000')).toBe(false);
    expect(originIsThisPage(undefined, '127.0.0.1:3000')).toBe(false);
  });
});
