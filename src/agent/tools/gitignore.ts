import { compileGlob } from '../../core/glob.js';

/**
 * .gitignore rules, as git reads them, for the exploration tools' JS walk (rg reads them itself): one file
 * per folder, its patterns relative to that folder; the last matching pattern wins; `!` re-includes; a
 * trailing `/` matches folders only; a pattern with a `/` before its end is anchored to its folder, one
 * without matches a name at any depth. A folder that is ignored is not entered, so (as in git) nothing
 * below it can be re-included.
 */
interface Rule {
  /** Folder of the .gitignore, relative to the root ('' for the root), '/'-separated. */
  base: string;
  negate: boolean;
  dirOnly: boolean;
  test: (path: string) => boolean;
}

export class IgnoreRules {
  private readonly rules: Rule[];

  private constructor(rules: Rule[]) {
    this.rules = rules;
  }

  static empty(): IgnoreRules {
    return new IgnoreRules([]);
  }

  /** These rules plus those of `text`, the .gitignore of folder `base` (root-relative, '' for the root). */
  with(base: string, text: string): IgnoreRules {
    const added = parseGitignore(text, base);
    return added.length === 0 ? this : new IgnoreRules([...this.rules, ...added]);
  }

  /** Whether `path` (root-relative, '/'-separated) is ignored; `isDir` for folders. */
  ignores(path: string, isDir: boolean): boolean {
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i]!;
      if (rule.dirOnly && !isDir) continue;
      if (rule.base !== '' && !path.startsWith(`${rule.base}/`)) continue;
      const local = rule.base === '' ? path : path.slice(rule.base.length + 1);
      if (rule.test(local)) return !rule.negate;
    }
    return false;
  }
}

export function parseGitignore(text: string, base = ''): Rule[] {
  const rules: Rule[] = [];
  for (let line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    // Trailing spaces are dropped unless escaped with a backslash.
    line = line.replace(/(?<!\\)\s+$/, '');
    if (line === '') continue;
    let negate = false;
    if (line.startsWith('!')) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1);
    let dirOnly = false;
    if (line.endsWith('/')) {
      dirOnly = true;
      line = line.replace(/\/+$/, '');
    }
    if (line === '') continue;
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    const glob = anchored ? line : `**/${line}`;
    const test = compileGlob(glob);
    rules.push({ base, negate, dirOnly, test });
  }
  return rules;
}
