import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PolicyEngine } from '../../src/gate/policy.js';
import { Guard } from '../../src/workspace/guard.js';

// Issue #26: deny globs and policy rules come from repositories that may be hostile; one that a backtracking
// matcher takes minutes over (picomatch did) must answer at once, and right.

const made: string[] = [];
afterEach(async () => {
  while (made.length > 0) await rm(made.pop()!, { recursive: true, force: true });
});

const hostile = '*a*a*a*a*a*a*a*a*b';
const long = 'a'.repeat(60);

describe('hostile globs', () => {
  it('a deny glob: the guard resolves a long name, and refuses the one it matches', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'editgate-guard-globs-')));
    made.push(root);
    await writeFile(join(root, long), 'x');
    const guard = await Guard.create({ roots: [root], deny: [hostile] });
    expect((await guard.resolve(long)).relative).toBe(long);
    await expect(guard.resolve(`${long}b`)).rejects.toThrow(`denied by workspace rule '${hostile}'`);
    // .git stays denied with a list of one's own.
    await expect(guard.resolve('.git/config')).rejects.toThrow("denied by workspace rule '**/.git/**'");
  });

  it('a policy rule', () => {
    const policy = new PolicyEngine({ rules: [{ path: `**/${hostile}`, action: 'deny' }] });
    expect(policy.evaluate('edit_file', `src/${long}`)).toEqual({ action: 'ask' });
    expect(policy.evaluate('edit_file', `src/${long}b`).action).toBe('deny');
  });
});

describe('one Unicode form for every glob (issue #26: a path identity for guard, globs, question, history)', () => {
  const nfc = 'cl\u00e9s';
  const nfd = 'cle\u0301s';

  it('a policy rule written in one form matches a path in the other, both ways', () => {
    for (const [rulePath, filePath] of [
      [`${nfc}/**`, `${nfd}/config.js`],
      [`${nfd}/**`, `${nfc}/config.js`],
    ] as const) {
      const policy = new PolicyEngine({ rules: [{ path: rulePath, action: 'deny' }] });
      expect(policy.evaluate('edit_file', filePath).action).toBe('deny');
      expect(policy.evaluateRead(filePath).action).toBe('deny');
    }
  });
});
