import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkRequest } from '../../src/mcp/http-guard.js';
import { hostCases } from '../core/loopback-hosts.js';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('HTTP request checks of the MCP server', () => {
  it.each(hostCases(3000))('Host $host: $why', ({ host, accepted }) => {
    const refused = checkRequest(req({ host }), undefined, 3000);
    if (accepted) expect(refused).toBeUndefined();
    else
      expect(refused).toMatchObject({
        status: 403,
        message: expect.stringContaining('http://127.0.0.1:3000/'),
      });
  });

  it('accepts a loopback Origin on any port (a browser-based client), refuses others', () => {
    const host = '127.0.0.1:3000';
    expect(checkRequest(req({ host, origin: 'http://localhost:5173' }), undefined, 3000)).toBeUndefined();
    expect(checkRequest(req({}), undefined, 3000)?.status).toBe(403);
    for (const origin of [
      'https://127.0.0.1.evil.example',
      'https://evil.example',
      'null',
      'http://[::1]:5173',
    ]) {
      expect(checkRequest(req({ host, origin }), undefined, 3000)?.status, origin).toBe(403);
    }
  });

  it('needs the bearer token when one is set', () => {
    const host = '127.0.0.1:3000';
    expect(checkRequest(req({ host }), 'secret', 3000)?.status).toBe(401);
    expect(checkRequest(req({ host, authorization: 'Bearer nope' }), 'secret', 3000)?.status).toBe(401);
    expect(checkRequest(req({ host, authorization: 'Basic secret' }), 'secret', 3000)?.status).toBe(401);
    expect(checkRequest(req({ host, authorization: 'Bearer secret' }), 'secret', 3000)).toBeUndefined();
  });
});
