import type { PolicyRule } from '../../gate/policy.js';
import { readShellLine, type ShellCommand } from './shell-syntax.js';

/**
 * Which shell commands run without asking. Rules come from the project's policy (editgate.config.json) with
 * `"tool": "bash"`; their `path` holds a command prefix in words (`"npm test"`), and a rule without `path`
 * covers every command. Deny beats allow beats ask, as for files. The line is read by bash's grammar
 * (shell-syntax.ts), never by a tokenizer of our own.
 *
 * - A prefix rule allows a line only when the WHOLE line is one simple command of plain words (no `;`, `&&`,
 *   `|`, `&`, newline, comment, substitution, variable, glob, redirection, assignment, `$'...'` or `$"..."`)
 *   whose words start with the rule's words as written (`/usr/bin/npm test` is not `npm test`), and whose
 *   further words hold no option that moves where the command acts (LOCATION_OPTIONS) unless the rule
 *   names it. Anything else is asked.
 * - A deny rule is matched against every command of the line, nested ones included, as it runs: after
 *   leading assignments, the folder of its path (`/bin/rm` is `rm`), and the wrappers that run the command
 *   after them (`env`, `command`, `exec`, `nohup`, `time`, `xargs`, `find -exec`...). When a deny rule
 *   exists and a command's name cannot be known (`$CMD`, `eval`, `sh -c`), or the line names the rule's
 *   words elsewhere (`strace rm`, `git -C . push`, `alias g=rm`), the line is asked, not allowed.
 * - A line the grammar cannot fully read is asked, whatever the rules.
 */
export type CommandVerdict = { action: 'allow' | 'ask' | 'deny'; rule?: string; reason?: string };

/**
 * The longest line the grammar reads: a longer one is asked unread. Reading costs about 10 µs a word, and
 * a model's 2 MB line (`echo a a a ...`) took 20 s, with the chat waiting; no command people allow blind is
 * this long (and bash -c takes at most 128 KiB).
 */
export const MAX_READ_COMMAND = 16 * 1024;

interface CommandRule {
  words: string[] | undefined;
  action: 'allow' | 'ask' | 'deny';
  text: string;
}

export class CommandPolicy {
  private readonly allows: CommandRule[];
  private readonly denies: CommandRule[];
  /** The rules' words, read once by the same grammar as the commands (`git commit -m "wip"`). */
  private rulesRead: Promise<void> | undefined;

  constructor(rules: readonly PolicyRule[] = []) {
    const commandRules = rules
      .filter((rule) => rule.tool === 'bash' && rule.change === undefined)
      .map(
        (rule): CommandRule => ({
          words: rule.path === undefined ? undefined : rule.path.trim().split(/[ \t]+/),
          action: rule.action,
          text: rule.path === undefined ? 'every command' : rule.path,
        }),
      );
    this.allows = commandRules.filter((rule) => rule.action === 'allow');
    this.denies = commandRules.filter((rule) => rule.action === 'deny');
  }

  async evaluate(command: string): Promise<CommandVerdict> {
    this.rulesRead ??= this.readRules();
    await this.rulesRead;
    for (const deny of this.denies) if (!deny.words) return { action: 'deny', rule: deny.text };
    if (command.length > MAX_READ_COMMAND)
      return ask(`it is longer than ${MAX_READ_COMMAND} characters, more than editgate reads to decide`);
    const line = await readShellLine(command);
    let unknown: string | undefined;
    for (const ran of line.commands.flatMap(resolveCommand)) {
      if (ran.words === undefined) {
        unknown ??= ran.why;
        continue;
      }
      for (const deny of this.denies) {
        const match = denyMatches(ran.words, deny.words!);
        if (match === 'yes') return { action: 'deny', rule: deny.text };
        if (match === 'maybe')
          unknown ??= `a word of it is computed by the shell, so the rule ${deny.text} cannot be checked`;
      }
    }
    for (const deny of this.denies)
      if (mentions(command, deny.words!))
        unknown ??= `it names ${deny.text} where editgate cannot tell whether it runs`;
    if (line.incomplete) return ask('bash reads it in a way editgate cannot be sure of (a syntax error)');
    if (unknown !== undefined && this.denies.length > 0) return ask(unknown);
    const every = this.allows.find((rule) => rule.words === undefined);
    if (every) return { action: 'allow', rule: every.text };
    const words = line.simple;
    if (!words) return ask(line.notSimple);
    let moved: string | undefined;
    for (const rule of this.allows) {
      if (!startsWith(words, rule.words!)) continue;
      const option = locationOption(words[0]!, words.slice(rule.words!.length));
      if (option === undefined) return { action: 'allow', rule: rule.text };
      moved ??= `${option} changes where ${rule.text} acts; the rule does not name it`;
    }
    return ask(moved);
  }

  private async readRules(): Promise<void> {
    for (const rule of [...this.allows, ...this.denies]) {
      if (rule.words === undefined) continue;
      rule.words = (await readShellLine(rule.text)).simple ?? rule.words;
    }
  }
}

function ask(reason: string | undefined): CommandVerdict {
  return reason === undefined ? { action: 'ask' } : { action: 'ask', reason };
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length > 0 && prefix.length <= words.length && prefix.every((word, i) => words[i] === word);
}

/** A deny rule's words against a command as it runs; `maybe` when a word it needs is computed. */
function denyMatches(
  words: readonly (string | undefined)[],
  rule: readonly string[],
): 'yes' | 'no' | 'maybe' {
  if (rule.length > words.length) return 'no';
  let maybe = false;
  for (let i = 0; i < rule.length; i++) {
    const word = i === 0 ? baseName(words[0]) : words[i];
    const wanted = i === 0 ? baseName(rule[0]) : rule[i];
    if (word === undefined) maybe = true;
    else if (word !== wanted) return 'no';
  }
  return maybe ? 'maybe' : 'yes';
}

/**
 * Whether the line names a deny rule's words anywhere, in order, as whole names (`strace rm`,
 * `git -C . push`, `alias g=rm`, `awk 'BEGIN{system("rm x")}'`): no list of wrappers, options and
 * interpreters is complete, so a line that names a denied command where editgate cannot see it run is asked.
 */
function mentions(line: string, rule: readonly string[]): boolean {
  const names = namesIn(line);
  const wanted = namesIn([baseName(rule[0]) ?? '', ...rule.slice(1)].join(' '));
  let at = -1;
  for (const word of wanted) {
    at = names.indexOf(word, at + 1);
    if (at < 0) return false;
  }
  return wanted.length > 0;
}

/** The names in a text: runs of letters, digits and `_ . + -` (`deploy:prod` is `deploy`, `prod`). */
function namesIn(text: string): string[] {
  return text.split(/[^\p{L}\p{N}_.+-]+/u).filter((name) => name !== '');
}

function baseName(word: string | undefined): string | undefined {
  if (word === undefined) return undefined;
  const base = word.slice(word.lastIndexOf('/') + 1);
  return base === '' ? undefined : base;
}

/**
 * Options that make a command act somewhere other than the root it runs in, write elsewhere, or take
 * another file or config: a prefix rule never covers them unless its own words name them, so
 * `npm test --prefix /x`, `git status -C ..` and `make -f other.mk` are asked even with rules for
 * `npm test`, `git status` and `make`. Matched without regard to case (`--rootDir`), and by abbreviation
 * (npm takes `--pref` for `--prefix`): any long option that starts one of these, from 3 letters on.
 * A list cannot know every program's options: a prefix rule is for commands whose other options are safe.
 */
export const LOCATION_OPTIONS: readonly string[] = [
  '--prefix',
  '--cwd',
  '--cd',
  '--chdir',
  '--dir',
  '--directory',
  '--root',
  '--rootdir',
  '--git-dir',
  '--work-tree',
  '--file',
  '--makefile',
  '--manifest-path',
  '--project',
  '--config',
  '--userconfig',
  '--globalconfig',
  '--global',
  '--script-shell',
  '--node-options',
  '--workspace',
  '--output',
  '--outdir',
  '--out-dir',
  '--outfile',
  '--out-file',
  '--basetemp',
];
/** Short options with the same effect: `-C DIR` for any command; `-f FILE` for make; `-g` for npm. */
const SHORT: Readonly<Record<string, readonly string[]>> = {
  make: ['f'],
  gmake: ['f'],
  bmake: ['f'],
  npm: ['g'],
  pnpm: ['g'],
  yarn: ['g'],
};

function locationOption(name: string, args: readonly string[]): string | undefined {
  const letters = ['C', ...(SHORT[name] ?? [])];
  for (const arg of args) {
    if (arg.startsWith('--')) {
      const option = arg.split('=')[0]!.toLowerCase();
      const moved = LOCATION_OPTIONS.find(
        (known) => known === option || (option.length >= 5 && known.startsWith(option)),
      );
      if (moved) return arg.split('=')[0]!;
    } else if (/^-[A-Za-z]/.test(arg)) {
      const letter = letters.find((candidate) => arg.slice(1).includes(candidate));
      if (letter) return `-${letter}`;
    }
  }
  return undefined;
}

/** A command as it runs, after assignments, paths and wrappers; `words` undefined when it cannot be told. */
type RanCommand = { words: (string | undefined)[]; why?: undefined } | { words: undefined; why: string };

interface Wrapper {
  /** Options that take the next word as their value (short as `-u`, long as `--unset`). */
  withValue?: readonly string[];
  /** Options after which the command is a string editgate does not read (`env -S`). */
  opaque?: readonly string[];
  /** NAME=VALUE words before the command (env, sudo). */
  assignments?: boolean;
  /** Words before the command that are not options (timeout's duration). */
  positional?: number;
}

/** Commands that run the command written after them. */
const WRAPPERS: Readonly<Record<string, Wrapper>> = {
  command: {},
  builtin: {},
  exec: { withValue: ['-a'] },
  nohup: {},
  time: { withValue: ['-o', '-f', '--output', '--format'] },
  coproc: {},
  env: {
    withValue: ['-u', '--unset', '-C', '--chdir', '-P'],
    opaque: ['-S', '--split-string'],
    assignments: true,
  },
  nice: { withValue: ['-n', '--adjustment'] },
  ionice: { withValue: ['-c', '-n', '-p', '--class', '--classdata'] },
  timeout: { withValue: ['-s', '--signal', '-k', '--kill-after'], positional: 1 },
  stdbuf: { withValue: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  sudo: {
    withValue: ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '--user', '--group', '--chdir'],
    assignments: true,
  },
  doas: { withValue: ['-u', '-C'] },
  xargs: {
    withValue: ['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s', '--arg-file', '--delimiter', '--eof'],
  },
  setsid: {},
  chroot: { withValue: ['--userspec', '--groups'], positional: 1 },
  flock: {
    withValue: ['-w', '-E', '--timeout', '--conflict-exit-code'],
    opaque: ['-c', '--command'],
    positional: 1,
  },
  busybox: {},
  toybox: {},
  unbuffer: {},
};

/** Commands that run shell text or a script editgate does not read: a deny rule cannot see inside. */
const RUNS_UNSEEN = new Set([
  'eval',
  'source',
  '.',
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'mksh',
  'fish',
  'csh',
  'tcsh',
  'su',
  'trap',
  'script',
  'watch',
  'parallel',
]);

/** The commands `command` runs: itself after its wrappers, and those find runs with -exec. */
function resolveCommand(command: ShellCommand): RanCommand[] {
  let words = command.words;
  for (let depth = 0; depth < 16; depth++) {
    const name = baseName(words[0]);
    if (name === undefined)
      return [{ words: undefined, why: 'the shell computes the name of a command in it' }];
    if (RUNS_UNSEEN.has(name))
      return [{ words: undefined, why: `${name} runs commands editgate cannot see` }];
    const wrapper = WRAPPERS[name];
    if (!wrapper) return name === 'find' ? [{ words }, ...findExecs(words)] : [{ words }];
    const start = afterWrapper(words, wrapper);
    if (start === undefined)
      return [{ words: undefined, why: `editgate cannot tell which command ${name} runs` }];
    if (start >= words.length) return [{ words }];
    words = words.slice(start);
  }
  return [{ words: undefined, why: 'it wraps a command in too many others' }];
}

/** Where the wrapped command starts in `words` (words[0] is the wrapper); undefined when unknown. */
function afterWrapper(words: readonly (string | undefined)[], wrapper: Wrapper): number | undefined {
  const withValue = new Set(wrapper.withValue ?? []);
  const opaque = new Set(wrapper.opaque ?? []);
  let i = 1;
  while (i < words.length) {
    const word = words[i];
    if (word === undefined) return undefined;
    if (word === '--') {
      i++;
      break;
    }
    if (wrapper.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      i++;
      continue;
    }
    if (!word.startsWith('-') || word === '-') break;
    if (word.startsWith('--')) {
      const option = word.split('=')[0]!;
      if (opaque.has(option)) return undefined;
      i += withValue.has(option) && !word.includes('=') ? 2 : 1;
      continue;
    }
    // A cluster of short options (`-iu NAME`): a value option takes the rest of the cluster or the next word.
    let takesNext = false;
    for (let j = 1; j < word.length; j++) {
      const option = `-${word[j]}`;
      if (opaque.has(option)) return undefined;
      if (withValue.has(option)) {
        takesNext = j === word.length - 1;
        break;
      }
    }
    i += takesNext ? 2 : 1;
  }
  i += wrapper.positional ?? 0;
  // An option after the positional words (`flock FILE -c TEXT`): which command runs is not told here.
  return words[i]?.startsWith('-') ? undefined : i;
}

/** The commands `find ... -exec CMD ... ;` runs. */
function findExecs(words: readonly (string | undefined)[]): RanCommand[] {
  const found: RanCommand[] = [];
  for (let i = 1; i < words.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(words[i] ?? '')) continue;
    let end = i + 1;
    while (end < words.length && words[end] !== ';' && words[end] !== '+') end++;
    found.push(...resolveCommand({ words: words.slice(i + 1, end) }));
    i = end;
  }
  return found;
}
