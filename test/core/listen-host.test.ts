import { describe, expect, it } from 'vitest';
import {
  hostNamesListenAddress,
  ListenAddressError,
  originIsListenAddress,
  parseListenAddress,
} from '../../src/core/listen-host.js';

describe('parseListenAddress', () => {
  it.each([
    ['192.168.1.20:8443', { host: '192.168.1.20', port: 8443, authorityName: '192.168.1.20' }],
    ['192.168.1.20', { host: '192.168.1.20', port: 0, authorityName: '192.168.1.20' }],
    ['[fd00::5]:8443', { host: 'fd00::5', port: 8443, authorityName: '[fd00::5]' }],
    ['fd00::5', { host: 'fd00::5', port: 0, authorityName: '[fd00::5]' }],
    [
      'MyBox.tail1234.ts.net:443',
      { host: 'mybox.tail1234.ts.net', port: 443, authorityName: 'mybox.tail1234.ts.net' },
    ],
  ])('reads %s', (text, expected) => {
    expect(parseListenAddress(text)).toEqual(expected);
  });

  it.each([
    ['0.0.0.0:8443', 'every interface'],
    ['[::]:8443', 'every interface'],
    ['::', 'every interface'],
    ['', 'no address'],
    ['192.168.1.20:99999', 'port'],
    ['192.168.1.20:http', 'port'],
    ['fd00::5:8443x', 'in brackets'],
    ['[192.168.1.2]:80', 'not an IPv6'],
    ['bad_name!:80', 'neither an IP address nor a host name'],
    ['http://192.168.1.20:8443', 'without a scheme'],
  ])('refuses %j, saying what to give', (text, why) => {
    expect(() => parseListenAddress(text)).toThrow(ListenAddressError);
    expect(() => parseListenAddress(text)).toThrow(why);
    expect(() => parseListenAddress(text)).toThrow('Give ADDRESS[:PORT]');
  });
});

describe('Host and Origin of the listening address', () => {
  const lan = parseListenAddress('192.168.1.20:8443');
  const v6 = parseListenAddress('[fd00::5]:8443');

  it('is that address and port exactly', () => {
    expect(hostNamesListenAddress('192.168.1.20:8443', lan, 8443)).toBe(true);
    expect(hostNamesListenAddress('[FD00::5]:8443', v6, 8443)).toBe(true);
    for (const host of [
      '192.168.1.20',
      '192.168.1.20:8444',
      '127.0.0.1:8443',
      'localhost:8443',
      'evil.example:8443',
      '192.168.1.20.evil.example:8443',
      'user@192.168.1.20:8443',
      undefined,
    ])
      expect(hostNamesListenAddress(host, lan, 8443)).toBe(false);
  });

  it('leaves the port out only when it is 443', () => {
    const name = parseListenAddress('mybox.tail1234.ts.net:443');
    expect(hostNamesListenAddress('mybox.tail1234.ts.net', name, 443)).toBe(true);
    expect(hostNamesListenAddress('mybox.tail1234.ts.net', name, 8443)).toBe(false);
  });

  it('takes an https:// Origin of the address only', () => {
    expect(originIsListenAddress('https://192.168.1.20:8443', lan, 8443)).toBe(true);
    for (const origin of [
      'http://192.168.1.20:8443',
      'https://192.168.1.20:8444',
      'https://evil.example',
      'null',
      undefined,
    ])
      expect(originIsListenAddress(origin, lan, 8443)).toBe(false);
  });
});
