import { describe, expect, it } from 'vitest';
import { pathInRoot, rootNames } from '../../src/core/root-named.js';

describe('root names (issue #13: prompts name the root when there are several)', () => {
  it("is each root's last folder name when those differ", () => {
    expect(rootNames(['/work/api', '/work/web'])).toEqual(['api', 'web']);
  });

  it('takes as many trailing folder names as it needs to tell two roots apart', () => {
    expect(rootNames(['/one/app', '/two/app', '/work/api'])).toEqual(['one/app', 'two/app', 'api']);
    expect(rootNames(['/a/x/app', '/b/x/app'])).toEqual(['a/x/app', 'b/x/app']);
  });

  it('falls back to the whole path when a shorter name is shared', () => {
    expect(rootNames(['/app', '/x/app'])).toEqual(['/app', 'x/app']);
    expect(rootNames(['/', '/srv'])).toEqual(['/', 'srv']);
  });

  it('gives names that are all different, for nested roots too', () => {
    const roots = ['/w', '/w/pkg', '/v/pkg', '/v/w'];
    const names = rootNames(roots);
    expect(new Set(names).size).toBe(roots.length);
  });

  it('shows a path alone with one root, and with the root name beside it with several', () => {
    expect(pathInRoot('src/app.ts')).toBe('src/app.ts');
    expect(pathInRoot('src/app.ts', 'api')).toBe('src/app.ts (root api)');
  });
});
