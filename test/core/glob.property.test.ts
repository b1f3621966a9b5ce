import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../src/core/glob.js';

// The linear matcher (src/core/glob.ts) against picomatch, the matcher it replaces, on ordinary globs: it
// must answer as picomatch did wherever picomatch was not slow. Not generated, where picomatch is not
// consistent with itself or with git: `[!...]` (picomatch reads "! or ..."), extglobs, `.`/`..` segments
// (paths are normalised), `.` or an empty option inside braces (read as a range or a dot segment),
// and `X/**` where X has a star (picomatch matches `a` with `a/**` and `?/**`, but not with `*/**`:
// here `X/**` always matches X itself too, which for a deny glob is the safe side), and `*.*` (picomatch
// wants a character after the dot there, though `a.*` matches `a.`; here a star may be empty, as in bash),
// and, in a glob with a POSIX class anywhere, a dot right after a literal character (picomatch then reads that
// dot as any character: it matches `x.[[:alpha:]]` with `xab` and `[[:alpha:]]c.?` with `AccA`, but escapes
// the dot of `[[:alpha:]].b` and `*.b`).

const letter = fc.constantFrom('a', 'b', 'c', 'A', '.', '-', '_');
const atom = fc.oneof(
  { weight: 6, arbitrary: letter },
  { weight: 2, arbitrary: fc.constant('*') },
  { weight: 2, arbitrary: fc.constant('?') },
  { weight: 1, arbitrary: fc.constantFrom('[ab]', '[a-c]', '[^a]', '[.b]', '[[:alpha:]]') },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.stringMatching(/^[abc*?]{1,3}$/), { minLength: 2, maxLength: 3 })
      .map((options) => `{${options.join(',')}}`),
  },
);
/** A segment: `**` alone, or atoms with no two stars side by side. */
const segment = fc.oneof(
  { weight: 1, arbitrary: fc.constant('**') },
  {
    weight: 5,
    arbitrary: fc
      .array(atom, { minLength: 1, maxLength: 5 })
      .map((atoms) => atoms.join(''))
      .filter((text) => !text.includes('**') && !/\*[^/]*\.\*/.test(text)),
  },
);
const glob = fc
  .tuple(fc.boolean(), fc.array(segment, { minLength: 1, maxLength: 4 }))
  .filter(
    ([, segments]) => !(segments.at(-1) === '**' && segments.length > 1 && segments.at(-2)!.includes('*')),
  )
  .map(([negate, segments]) => `${negate ? '!' : ''}${segments.join('/')}`)
  .filter((pattern) => !(pattern.includes('[[:') && /[\w.-]\./.test(pattern)));

const name = fc.stringMatching(/^[abcA.\-_]{1,4}$/).filter((text) => text !== '.' && text !== '..');
const path = fc.array(name, { minLength: 1, maxLength: 5 }).map((names) => names.join('/'));

/** A path the glob likely matches: its wildcards filled in. */
function instance(pattern: string, fill: string): string {
  return pattern
    .replace(/^!/, '')
    .replace(/\*\*/g, `${fill}/${fill}`)
    .replace(/\[\[:alpha:\]\]/g, 'b')
    .replace(/\[[^\]]*\]/g, 'b')
    .replace(/\{([^,}]*),[^}]*\}/g, '$1')
    .replace(/[*?]/g, fill.slice(0, 1) || 'a');
}

/** A path as the tools give it: relative, no empty, `.` or `..` segment. */
function normalised(candidate: string): boolean {
  return candidate.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

describe('compileGlob agrees with picomatch on ordinary globs', () => {
  it('on random paths and on paths made to match', () => {
    fc.assert(
      fc.property(glob, path, name, fc.boolean(), (pattern, random, fill, nocase) => {
        const ours = compileGlob(pattern, { nocase });
        const theirs = picomatch(pattern, { dot: true, nocase });
        for (const candidate of [random, instance(pattern, fill)].filter(normalised)) {
          expect(ours(candidate), `${pattern} on ${candidate}`).toBe(theirs(candidate));
        }
      }),
      { numRuns: 3000 },
    );
  });
});
