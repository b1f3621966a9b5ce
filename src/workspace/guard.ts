/**
 * The sandbox: every path a caller gives is resolved to a canonical real path inside a workspace root, or
 * refused. Decisions worth knowing:
 *
 * - Relative paths resolve against the first root; absolute paths must lie in a root as canonicalised, or as
 *   given to `create` (so a root that is itself a symlink works either way). Other aliases are refused.
 * - `..`, `.` and `//` in the input are normalised lexically first, then the result is walked component by
 *   component from the real root with lstat, following symlinks the way the kernel does. The walk never
 *   touches anything outside a root: a step that would leave is refused before any syscall, so errors cannot
 *   tell "exists outside" from "does not exist outside".
 * - A symlink inside a root that leads inside is resolved to its target (`absolute` is the target); one that
 *   leads out, dangling or not, is refused with OUTSIDE_ROOT.
 * - Deny globs refuse with OUTSIDE_ROOT and the message "denied by workspace rule '<glob>'". They are tested
 *   against both the path as given and the canonical path. The default also covers nested `.git` folders
 *   (vendored repositories, submodules): their hooks run code too.
 * - `~` is not expanded: `~/x` is a folder named `~` in the root. Backslashes are ordinary name characters on
 *   POSIX; only Windows drive (`C:\`, `C:/`) and UNC (`\\server`) forms are refused. Unicode look-alikes
 *   (fullwidth solidus `／`, one-dot leaders `․․`) are names, never separators or traversal: only `/` splits.
 * - A name the caller gives that does not exist byte for byte is the one entry that is the same under NFC,
 *   if there is one (path-identity.ts): a file is the name as it exists on disk, for everything after the
 *   guard. Deny globs match the NFC form of the glob and of the path.
 */
import type { Stats } from 'node:fs';
import { lstatSync, readlinkSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { EditgateError } from '../core/errors.js';
import { compileGlob } from '../core/glob.js';
import { rootNames } from '../core/root-named.js';
import { matchForm, nameOnDisk } from './path-identity.js';

export interface GuardOptions {
  /** One or more roots; relative input paths resolve against the first. */
  roots: string[];
  /**
   * Globs (relative to a root, core/glob.ts syntax, dot files included) refused even inside a root.
   * Default DEFAULT_DENY: `.git` and everything under it, at any depth. A list given here replaces it;
   * ALWAYS_DENY (`.git` and editgate.config.json) is refused whatever the list.
   */
  deny?: string[];
  /**
   * The roots deny globs and policy rules are written against, when `roots` are narrower (an MCP client's
   * roots inside the configured ones): rules keep matching the path relative to these (issue #13).
   */
  ruleRoots?: string[];
}

export interface ResolvedPath {
  /** Canonical real path of the file (symlinks inside the root followed to their target). */
  absolute: string;
  /** The canonical real root it lies in. */
  root: string;
  /** With several roots: the root's short name (core/root-named.ts), so people can tell the roots apart. */
  rootName?: string;
  /** Path relative to that root, '/'-separated: what people and globs see. */
  relative: string;
  /** The file exists now (a regular file). */
  exists: boolean;
  /** With rule roots (GuardOptions.ruleRoots): the path relative to the one holding it, for policy rules. */
  ruleRelative?: string;
  /** Device and inode of the file checked (when it exists): an open that finds another file refuses it. */
  identity?: { dev: number; ino: number };
}

/** `**\/` also matches zero folders, so these cover `.git` at the top and nested ones. */
export const DEFAULT_DENY: readonly string[] = ['**/.git', '**/.git/**'];

/**
 * Refused whatever deny list is given: a model that could write `.git` could plant a hook git runs
 * (`.git/hooks/pre-commit`), and one that could write editgate's own config could change its rules.
 */
export const ALWAYS_DENY: readonly string[] = [...DEFAULT_DENY, '**/editgate.config.json'];

/**
 * The deny rules that apply with `given` (a config's or a caller's list, default DEFAULT_DENY): always
 * ALWAYS_DENY, then the rest. Every tool that reads or lists files uses these (the guard, and the chat's
 * list_dir, glob and grep), so a config with its own deny list never opens `.git` to any of them.
 */
export function denyRules(given: readonly string[] = DEFAULT_DENY): DenyRule[] {
  const globs = [...ALWAYS_DENY, ...given.filter((glob) => !ALWAYS_DENY.includes(glob))];
  // Case-insensitive filesystems would let `.GIT/config` reach `.git/config`.
  const nocase = process.platform === 'darwin' || process.platform === 'win32';
  return globs.map((glob): DenyRule => {
    if (typeof glob !== 'string' || glob === '') {
      throw new EditgateError('INVALID_INPUT', 'Deny rules must be non-empty glob strings.');
    }
    // compileGlob matches glob and path in one Unicode form (path-identity.ts), so `clés/**` written in
    // either form denies the folder whatever form its name has on disk or in the request.
    return { glob: matchForm(glob), test: compileGlob(glob, { nocase }) };
  });
}

const PATH_MAX = 4096; // bytes including the terminating NUL (Linux)
const NAME_MAX = 255; // bytes per file or folder name
const MAX_LINKS = 40; // the kernel's limit before ELOOP

export interface DenyRule {
  glob: string;
  test: (relative: string) => boolean;
}

interface Walked {
  /** Canonical path reached (for a missing file: the real folder it would be in, plus the missing names). */
  path: string;
  /** null when `path` is a folder known without an lstat (a root, an ancestor of one), or missing. */
  stats: Stats | null;
  missing: boolean;
  /** A symlink was followed on the way. */
  viaLink: boolean;
}

export class Guard {
  readonly roots: readonly string[];
  /** Roots as given (made absolute) where that differs from the canonical form, for absolute inputs. */
  private readonly aliases: readonly { given: string; real: string }[];
  private readonly deny: readonly DenyRule[];
  /** Where deny globs are matched from: the rule roots when given, else the roots. */
  private readonly ruleRoots: readonly string[] | undefined;
  /** Short names of the roots, by root; empty with one root (a path alone says where it is). */
  private readonly names: ReadonlyMap<string, string>;

  private constructor(
    roots: string[],
    aliases: { given: string; real: string }[],
    deny: DenyRule[],
    ruleRoots?: string[],
  ) {
    this.roots = roots;
    this.aliases = aliases;
    this.deny = deny;
    this.ruleRoots = ruleRoots;
    const names = roots.length > 1 ? rootNames(roots) : [];
    this.names = new Map(names.map((name, index) => [roots[index]!, name]));
  }

  static async create(options: GuardOptions): Promise<Guard> {
    if (!Array.isArray(options?.roots) || options.roots.length === 0) {
      throw new EditgateError('INVALID_INPUT', 'A workspace needs at least one root folder.');
    }
    const roots: string[] = [];
    const aliases: { given: string; real: string }[] = [];
    for (const root of options.roots) {
      if (typeof root !== 'string' || root === '' || root.includes('\0')) {
        throw new EditgateError('INVALID_INPUT', 'Workspace roots must be non-empty folder paths.');
      }
      const given = path.resolve(root);
      const real = await canonicalRoot(given);
      if (!roots.includes(real)) roots.push(real);
      if (given !== real) aliases.push({ given, real });
    }
    const deny = denyRules(options.deny);
    const ruleRoots = options.ruleRoots
      ? await Promise.all(options.ruleRoots.map((root) => canonicalRoot(path.resolve(root))))
      : undefined;
    return new Guard(roots, aliases, deny, ruleRoots);
  }

  async resolve(input: string): Promise<ResolvedPath> {
    this.checkInput(input);
    const lexical = this.unalias(path.resolve(this.roots[0]!, input));
    const home = this.homeOf(lexical);
    // Lexically outside every root: refuse without a single syscall out there.
    if (home === undefined) throw this.outside();
    checkLength(lexical);
    const label = toPosix(path.relative(home, lexical)) || '.';
    this.checkDeny(lexical, label, `'${label}'`);

    const parts = label === '.' ? [] : label.split('/');
    const walked = this.walk(home, parts, label);
    const place = this.place(walked.path);
    if (place === 'root') throw isDirectory(`'${label}'`, label);
    if (place !== 'inside') throw this.outside(walked.viaLink ? label : undefined);
    checkLength(walked.path);

    const root = this.homeOf(walked.path)!;
    const relative = toPosix(path.relative(root, walked.path));
    const shown =
      matchForm(label) === matchForm(relative) ? `'${label}'` : `'${label}' (a link to '${relative}')`;
    this.checkDeny(walked.path, relative, shown);
    checkEntry(walked, shown);
    if (/\/\.?$/.test(input)) {
      throw new EditgateError(
        'INVALID_INPUT',
        `${shown} ends with '/', which names a folder. Give the path of a file, without the trailing '/'.`,
        { path: relative },
      );
    }
    const resolved: ResolvedPath = { absolute: walked.path, root, relative, exists: !walked.missing };
    const rootName = this.names.get(root);
    if (rootName !== undefined) resolved.rootName = rootName;
    const ruleRelative = this.ruleRelativeOf(walked.path);
    if (ruleRelative !== undefined) resolved.ruleRelative = ruleRelative;
    if (walked.stats && !walked.missing) resolved.identity = { dev: walked.stats.dev, ino: walked.stats.ino };
    return resolved;
  }

  async recheck(resolved: ResolvedPath): Promise<void> {
    const root = this.roots.find((r) => r === resolved.root);
    if (root === undefined || !contains(root, resolved.absolute)) throw this.outside();
    const relative = toPosix(path.relative(root, resolved.absolute));
    // Walking the canonical path again lstats every folder on the way: any one swapped for a symlink sends
    // the walk elsewhere (or out, which the walk refuses itself).
    const walked = this.walk(root, relative.split('/'), relative);
    if (walked.path !== resolved.absolute) {
      throw new EditgateError(
        'OUTSIDE_ROOT',
        `'${relative}' no longer leads to the same place inside the workspace: a folder or link on the way changed after it was checked. Nothing was written; check the path and try again.`,
        { path: relative, reason: 'changed' },
      );
    }
    checkEntry(walked, `'${relative}'`);
  }

  /**
   * The root a canonical absolute path named in editgate's own records lies in (a change-set journal's
   * file: change-set-journal.ts), refused as any input would be when it lies outside every root, is a root
   * itself, or is denied. No filesystem access: whoever acts on it opens its folder pinned from that root
   * (guarded-open.ts), which refuses a link on the way.
   */
  rootOfRecorded(absolute: string): string {
    if (!path.isAbsolute(absolute) || path.normalize(absolute) !== absolute || absolute.includes('\0'))
      throw this.outside();
    const root = this.homeOf(absolute);
    if (root === undefined || absolute === root) throw this.outside();
    const relative = toPosix(path.relative(root, absolute));
    this.checkDeny(absolute, relative, `'${relative}'`);
    return root;
  }

  /** Input checks that need no filesystem access. */
  private checkInput(input: string): void {
    if (typeof input !== 'string' || input.trim() === '') {
      throw new EditgateError(
        'INVALID_INPUT',
        `The path is empty. Give the path of a file relative to the workspace root ${this.roots[0]}, such as 'src/index.ts'.`,
      );
    }
    if (input.includes('\0')) {
      throw new EditgateError(
        'INVALID_INPUT',
        'The path contains a NUL byte (\\0), which no file name can contain. Remove it and try again.',
      );
    }
    if (path.sep === '/' && (/^[A-Za-z]:([\\/]|$)/.test(input) || input.startsWith('\\\\'))) {
      throw new EditgateError(
        'INVALID_INPUT',
        `That is a Windows path (drive letter or \\\\server share), but this workspace is on a POSIX system. Use a path relative to the workspace root ${this.roots[0]}, with '/' between folders.`,
      );
    }
    if (Buffer.byteLength(input) >= PATH_MAX) checkLength(input);
    for (const name of input.split('/')) checkName(name);
  }

  /** Absolute inputs that use a root as it was given (e.g. through a symlink) are mapped to the real root. */
  private unalias(absolute: string): string {
    for (const { given, real } of this.aliases) {
      if (absolute === given) return real;
      if (contains(given, absolute)) return real + absolute.slice(given.length);
    }
    return absolute;
  }

  /** The most specific root containing (or equal to) `p`. */
  private homeOf(p: string): string | undefined {
    let home: string | undefined;
    for (const root of this.roots) {
      if ((p === root || contains(root, p)) && (home === undefined || root.length > home.length)) home = root;
    }
    return home;
  }

  private place(p: string): 'root' | 'inside' | 'ancestor' | 'outside' {
    let ancestor = false;
    for (const root of this.roots) {
      if (p === root) return 'root';
      if (contains(root, p)) return 'inside';
      if (contains(p, root)) ancestor = true;
    }
    return ancestor ? 'ancestor' : 'outside';
  }

  /**
   * Resolve `parts` from the real folder `start` like the kernel would (symlinks followed, `..` taken from the
   * canonical folder), refusing any step that would look at something outside a root. Roots and their
   * ancestors are canonical, so they are real folders and need no lstat.
   */
  private walk(start: string, parts: string[], label: string): Walked {
    // `given`: a name from the caller, which may name an entry written in another Unicode form
    // (path-identity.ts); names from a link's target are taken as the bytes they are, as the kernel does.
    const pending = parts.map((name) => ({ name, given: true })).reverse();
    let cur = start;
    let curStats: Stats | null = null;
    let links = 0;
    while (pending.length > 0) {
      const { name, given } = pending.pop()!;
      if (curStats !== null && !curStats.isDirectory()) throw notAFolder(label);
      if (name === '' || name === '.') continue;
      if (name === '..') {
        cur = path.dirname(cur);
        curStats = null;
        continue;
      }
      const next = cur.endsWith(path.sep) ? cur + name : cur + path.sep + name;
      const place = this.place(next);
      if (place === 'outside') throw this.outside(links > 0 ? label : undefined);
      if (place !== 'inside') {
        cur = next;
        curStats = null;
        continue;
      }
      let st: Stats;
      try {
        // Synchronous: an lstat takes microseconds, a thread-pool round trip many times that (io.ts).
        st = lstatSync(next);
      } catch (error) {
        const code = errnoOf(error);
        if (code === 'ENOENT') {
          const onDisk = given ? nameOnDisk(cur, name, label) : undefined;
          if (onDisk !== undefined) {
            pending.push({ name: onDisk, given: false });
            continue;
          }
          return missing(
            next,
            pending.map((each) => each.name),
            label,
            links > 0,
          );
        }
        if (code === 'ENOTDIR') throw notAFolder(label);
        throw fsFailure(error, label);
      }
      if (st.isSymbolicLink()) {
        if (++links > MAX_LINKS) {
          throw new EditgateError(
            'INVALID_INPUT',
            `'${label}' goes through too many symbolic links (more than ${MAX_LINKS}, probably a loop). Use the path of the real file.`,
            { path: label },
          );
        }
        let target: string;
        try {
          target = readlinkSync(next);
        } catch (error) {
          throw fsFailure(error, label);
        }
        if (path.isAbsolute(target)) cur = path.parse(target).root;
        curStats = null; // cur is the folder holding the link, or a filesystem root: a folder either way
        const segments = target.split(path.sep);
        for (let i = segments.length - 1; i >= 0; i--) pending.push({ name: segments[i]!, given: false });
        continue;
      }
      cur = next;
      curStats = st;
    }
    return { path: cur, stats: curStats, missing: false, viaLink: links > 0 };
  }

  /** The path relative to the innermost rule root holding it; undefined without rule roots. */
  private ruleRelativeOf(absolute: string): string | undefined {
    if (!this.ruleRoots) return undefined;
    const holding = this.ruleRoots.filter((root) => contains(root, absolute));
    const innermost = holding.sort((a, b) => b.length - a.length)[0];
    return innermost === undefined ? undefined : toPosix(path.relative(innermost, absolute));
  }

  private checkDeny(absolute: string, relative: string, shown: string): void {
    // With nested roots a path is relative to each root holding it; every view must pass. Rule roots (the
    // configured ones, when these roots are narrowed) are views too.
    for (const root of [...this.roots, ...(this.ruleRoots ?? [])]) {
      if (!contains(root, absolute)) continue;
      const rel = matchForm(
        root === this.homeOf(absolute) ? relative : toPosix(path.relative(root, absolute)),
      );
      for (const rule of this.deny) {
        if (rule.test(rel)) {
          throw new EditgateError(
            'OUTSIDE_ROOT',
            {
              happened: `${shown} is denied by workspace rule '${rule.glob}': editgate does not read or change it.`,
              advice: 'Do not retry; choose another file or ask the user.',
            },
            { path: rel, rule: rule.glob, reason: 'denied' },
          );
        }
      }
    }
  }

  /** The one message for anything outside: it names the roots, never the path or what lies there. */
  private outside(linkLabel?: string): EditgateError {
    const where =
      this.roots.length === 1
        ? `the workspace root ${this.roots[0]}`
        : `the workspace roots (${this.roots.join(', ')})`;
    const message =
      linkLabel === undefined
        ? `Paths must stay inside ${where}. Use a path relative to ${this.roots[0]}${this.roots.length > 1 ? ', or an absolute path inside one of the roots' : ''}.`
        : {
            happened: `'${linkLabel}' goes through a symbolic link that leads outside ${where}; editgate only reads and changes files inside it.`,
            advice: 'Edit the file at its place inside the workspace, or ask the user.',
          };
    return new EditgateError('OUTSIDE_ROOT', message, {
      roots: [...this.roots],
      ...(linkLabel === undefined ? {} : { path: linkLabel, reason: 'symlink' }),
    });
  }
}

async function canonicalRoot(given: string): Promise<string> {
  let real: string;
  let st: Stats;
  try {
    real = await realpath(given);
    st = await stat(real);
  } catch (error) {
    const code = errnoOf(error);
    if (code === undefined) throw error;
    const why = code === 'ENOENT' || code === 'ENOTDIR' ? 'does not exist' : `cannot be opened (${code})`;
    throw new EditgateError('INVALID_INPUT', `Workspace root ${given} ${why}. Choose an existing folder.`, {
      root: given,
      errno: code,
    });
  }
  if (!st.isDirectory()) {
    throw new EditgateError('INVALID_INPUT', `Workspace root ${given} is not a folder. Choose a folder.`, {
      root: given,
    });
  }
  return real;
}

/** The first missing name was reached: the rest cannot exist either, and must not climb with `..`. */
function missing(first: string, pending: string[], label: string, viaLink: boolean): Walked {
  const rest = pending.reverse().filter((name) => name !== '' && name !== '.');
  if (rest.includes('..')) {
    throw new EditgateError(
      'INVALID_INPUT',
      `'${label}' goes through a symbolic link whose target does not exist and uses '..' after the missing part, so it cannot be resolved. Use the path of the real file.`,
      { path: label },
    );
  }
  return { path: path.join(first, ...rest), stats: null, missing: true, viaLink };
}

/** What may be edited: a regular file with one link. Missing is fine (it will be created). */
function checkEntry(walked: Walked, shown: string): void {
  if (walked.missing) return;
  const st = walked.stats;
  if (st === null || st.isDirectory()) throw isDirectory(shown);
  if (!st.isFile()) {
    const kind = st.isFIFO()
      ? 'a FIFO (named pipe)'
      : st.isSocket()
        ? 'a socket'
        : st.isCharacterDevice() || st.isBlockDevice()
          ? 'a device file'
          : 'a special file';
    throw new EditgateError(
      'INVALID_INPUT',
      `${shown} is ${kind}, not a regular file; editgate only reads and changes regular files. Choose another path.`,
      { kind },
    );
  }
  if (st.nlink > 1) {
    throw new EditgateError(
      'OUTSIDE_ROOT',
      {
        happened: `${shown} has ${st.nlink} hard links, so it may be the same file as one outside the workspace; editgate does not read or change files with more than one link.`,
        advice: 'Do not retry; ask the user to replace it with a plain copy.',
      },
      { nlink: st.nlink, reason: 'hardlink' },
    );
  }
}

function isDirectory(shown: string, label?: string): EditgateError {
  return new EditgateError(
    'IS_DIRECTORY',
    `${shown} is a folder, not a file. Give the path of a file inside it.`,
    {
      path: label,
    },
  );
}

function notAFolder(label: string): EditgateError {
  return new EditgateError(
    'INVALID_INPUT',
    `A part of '${label}' before the last name is a file, not a folder, so nothing can be inside it. Check the path.`,
    { path: label },
  );
}

function checkLength(p: string): void {
  const bytes = Buffer.byteLength(p);
  if (bytes >= PATH_MAX) {
    throw new EditgateError(
      'NAME_TOO_LONG',
      `The path is too long (${bytes} bytes; the limit is ${PATH_MAX - 1}). Use a shorter path.`,
      { bytes },
    );
  }
  for (const name of p.split(path.sep)) checkName(name);
}

function checkName(name: string): void {
  const bytes = Buffer.byteLength(name);
  if (bytes > NAME_MAX) {
    throw new EditgateError(
      'NAME_TOO_LONG',
      `A name in the path is ${bytes} bytes long ('${[...name].slice(0, 16).join('')}…'); file and folder names are limited to ${NAME_MAX} bytes. Use a shorter name.`,
      { bytes },
    );
  }
}

/** Errors from looking inside a root: they name only the path as the caller gave it. */
function fsFailure(error: unknown, label: string): unknown {
  const code = errnoOf(error);
  switch (code) {
    case undefined:
      return error;
    case 'EACCES':
    case 'EPERM':
      return new EditgateError(
        'PERMISSION',
        {
          happened: `Permission denied while looking up '${label}'.`,
          advice: 'Do not retry; ask the user to fix the permissions or choose another file.',
        },
        { path: label, errno: code },
      );
    case 'ENAMETOOLONG':
      return new EditgateError(
        'NAME_TOO_LONG',
        `'${label}' is too long for the filesystem. Use a shorter path.`,
        {
          path: label,
          errno: code,
        },
      );
    default:
      return new EditgateError(
        'IO',
        `Could not look up '${label}' (${code}). Try again, or choose another path.`,
        {
          path: label,
          errno: code,
        },
      );
  }
}

/** Strictly inside: separator-aware, so `/work/app` does not contain `/work/app-secrets`. */
function contains(parent: string, child: string): boolean {
  const prefix = parent.endsWith(path.sep) ? parent : parent + path.sep;
  return child.length > prefix.length && child.startsWith(prefix);
}

function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

function errnoOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
