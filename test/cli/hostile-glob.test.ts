import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
import { cliWorkspace, runCli } from './run-cli.js';

// Issue #26: a deny glob from a repository's config (applied without trust, as every deny glob is) that a
// backtracking matcher takes minutes over stalled `editgate read` for as long. Globs now match in linear time.

beforeAll(ensureBuilt, 120_000);

describe('editgate read with a hostile deny glob and policy rule in the config', () => {
  it('reads a file with a long name, and still refuses what the glob denies', async () => {
    const long = 'a'.repeat(60);
    const ws = cliWorkspace({
      'editgate.config.json': JSON.stringify({
        deny: ['*a*a*a*a*a*a*a*a*b'],
        policy: { rules: [{ path: `${'*a'.repeat(30)}c`, action: 'deny' }] },
      }),
      [long]: 'hello\n',
      [`${long}b`]: 'denied\n',
    });
    const at = { cwd: ws.root, stateDir: ws.stateDir };
    const read = await runCli(['read', long], at);
    expect(read).toMatchObject({ code: 0, stdout: '     1\thello\n' });
    const denied = await runCli(['read', `${long}b`], at);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('denied by workspace rule');
  });
});
