/**
 * Glob matching in time linear in the path (times the pattern's size), whatever the pattern: deny globs,
 * policy rules and .gitignore lines come from repositories that may be hostile, and a backtracking
 * regular expression (what picomatch compiles to) took 14 s to test `*a*a*a*a*a*a*a*a*b` against a
 * 60-character name (issue #26). The pattern is compiled to a nondeterministic automaton and run over the
 * path once, keeping the set of states it may be in (Thompson's construction): no state is tried twice at
 * one position, so nothing backtracks. Each set met, and where a character leads from it, is remembered,
 * so matching many paths costs about one lookup per character.
 *
 * The syntax is picomatch's with `dot: true`, for the globs editgate's users write, and gives the same
 * answers on them (a property test compares the two), but for `[!a]`, which is "any character but a" here
 * as in git and bash (picomatch read it as "`!` or `a`"):
 * - `*` any characters but `/` (dot files included); `?` one character but `/`;
 * - `**` as a whole segment: any number of segments (`**\/x` is `x` at any depth, `a/**` is `a` and all
 *   under it, `a/**\/b` is `a/b`, `a/x/b`...); `**` elsewhere is `*` (as in git and bash);
 * - `[abc]`, `[a-z]`, `[!a]`/`[^a]`, `[[:alpha:]]` (never `/`); `\` escapes the next character;
 * - `{a,b}` alternatives (nested), `{1..5}` and `{a..e}` ranges (MAX_RANGE items a pattern, else literal);
 * - a leading `!` negates the whole pattern; a leading `./` is dropped.
 * Not supported: extglobs (`+(a|b)`, `@(a)`...), whose characters are literal here.
 *
 * Pattern and path are matched in one Unicode form, NFC (workspace/path-identity.ts says why): `clés/**`
 * typed in either form matches a folder whose name is in either form, for every glob editgate matches.
 */

export interface GlobOptions {
  /** Letters match either case (case-insensitive filesystems). */
  nocase?: boolean;
}

export type GlobMatcher = (path: string) => boolean;

/**
 * The most items the `{1..N}` ranges of one pattern expand to, together; past it a range is literal text
 * (so a pattern cannot grow its automaton, and every match's cost, a thousandfold per range).
 */
export const MAX_RANGE = 1000;

/**
 * Reading a pattern costs at most this many steps per character (plus a little): past it, a `[` or `{`
 * still unread is literal text. A hostile line of unclosed brackets (`[[:[[:[[:...`, `[\][\]...`) made each
 * bracket scan to the end of the line: 6,000 characters took 26 s to read before one path was matched.
 * Globs people write never come near it. Braces nest at most MAX_BRACE_DEPTH deep (deeper ones are literal),
 * so reading and building stay off the stack's limit.
 */
const SCAN_STEPS_PER_CHAR = 32;
export const MAX_BRACE_DEPTH = 32;
/** The longest POSIX class name (`xdigit`, `alnum`...) with its `:`. */
const LONGEST_CLASS = 7;

export function compileGlob(pattern: string, options: GlobOptions = {}): GlobMatcher {
  let negated = false;
  let body = pattern.normalize('NFC');
  while (body.startsWith('!') && !body.startsWith('!(')) {
    negated = !negated;
    body = body.slice(1);
  }
  while (body.startsWith('./')) body = body.slice(2);
  const machine = new Machine(options.nocase === true);
  const start = machine.build(parseGlob(body));
  return (path) => machine.run(start, path.normalize('NFC')) !== negated;
}

// ---- The pattern as a tree -------------------------------------------------------------------------------

type Piece =
  | { type: 'char'; char: string }
  | { type: 'any' } // one character but '/'
  | { type: 'class'; member: (char: string) => boolean; negate: boolean }
  | { type: 'star' } // any characters but '/'
  | { type: 'all' } // any characters, '/' included
  | { type: 'optional'; body: Piece[] }
  | { type: 'either'; options: Piece[][] };

function parseGlob(pattern: string): Piece[] {
  const chars = Array.from(pattern);
  // `**` alone: every path (at least one character, as picomatch).
  if (chars.length === 2 && chars[0] === '*' && chars[1] === '*') return [{ type: 'any' }, { type: 'all' }];
  return new Parser(chars).sequence(0, chars.length, true, true);
}

class Parser {
  /** Range items the pattern may still expand to (MAX_RANGE in all). */
  private rangeBudget = MAX_RANGE;
  /** Scan steps left for brackets and braces (SCAN_STEPS_PER_CHAR). */
  private scanBudget: number;
  private braceDepth = 0;

  constructor(private readonly chars: readonly string[]) {
    this.scanBudget = SCAN_STEPS_PER_CHAR * chars.length + 1024;
  }

  /**
   * The pieces of chars[from, to). `segmentStart`/`segmentEnd`: whether `from`/`to` lie at a segment's
   * start/end (the pattern's ends or a `/`), which decides whether a `**` there is a whole segment.
   */
  sequence(from: number, to: number, segmentStart: boolean, segmentEnd: boolean): Piece[] {
    const chars = this.chars;
    const pieces: Piece[] = [];
    let i = from;
    while (i < to) {
      const char = chars[i]!;
      if (char === '\\') {
        pieces.push({ type: 'char', char: i + 1 < to ? chars[i + 1]! : '\\' });
        i += 2;
      } else if (char === '*') {
        let end = i;
        while (end < to && chars[end] === '*') end++;
        const startsSegment = i === from ? segmentStart : chars[i - 1] === '/';
        const endsSegment = end === to ? segmentEnd : chars[end] === '/';
        if (end - i >= 2 && startsSegment && endsSegment) {
          if (end < to) {
            // `**/`: nothing, or anything ending with '/'.
            pieces.push({ type: 'optional', body: [{ type: 'all' }, { type: 'char', char: '/' }] });
            i = end + 1;
            continue;
          }
          const previous = pieces.at(-1);
          if (previous?.type === 'char' && previous.char === '/' && i > from) {
            // `a/**`: `a` itself, or `/` and anything.
            pieces.pop();
            pieces.push({ type: 'optional', body: [{ type: 'char', char: '/' }, { type: 'all' }] });
          } else pieces.push({ type: 'all' });
          i = end;
          continue;
        }
        pieces.push({ type: 'star' });
        i = end;
      } else if (char === '?') {
        pieces.push({ type: 'any' });
        i++;
      } else if (char === '[') {
        const parsed = this.bracket(i, to);
        if (parsed) {
          pieces.push({ type: 'class', member: parsed.member, negate: parsed.negate });
          i = parsed.end;
        } else {
          pieces.push({ type: 'char', char });
          i++;
        }
      } else if (char === '{') {
        const parsed = this.brace(i, to, i === from ? segmentStart : chars[i - 1] === '/', segmentEnd);
        if (parsed) {
          pieces.push(parsed.piece);
          i = parsed.end;
        } else {
          pieces.push({ type: 'char', char });
          i++;
        }
      } else {
        pieces.push({ type: 'char', char });
        i++;
      }
    }
    return pieces;
  }

  /** `{a,b}` or `{1..5}` at `open`; undefined when it is literal text. */
  private brace(
    open: number,
    to: number,
    segmentStart: boolean,
    segmentEnd: boolean,
  ): { piece: Piece; end: number } | undefined {
    const chars = this.chars;
    if (this.braceDepth >= MAX_BRACE_DEPTH) return undefined;
    const commas: number[] = [];
    let depth = 0;
    let close = -1;
    for (let i = open + 1; i < to; i++) {
      if (--this.scanBudget < 0) return undefined;
      const char = chars[i]!;
      if (char === '\\') i++;
      else if (char === '[') {
        const bracket = this.bracket(i, to);
        if (bracket) i = bracket.end - 1;
      } else if (char === '{') depth++;
      else if (char === '}') {
        if (depth === 0) {
          close = i;
          break;
        }
        depth--;
      } else if (char === ',' && depth === 0) commas.push(i);
    }
    if (close < 0) return undefined;
    const afterEnd = close + 1 === to ? segmentEnd : chars[close + 1] === '/';
    if (commas.length === 0) {
      const range = expandRange(chars.slice(open + 1, close).join(''), this.rangeBudget);
      if (!range) return undefined;
      this.rangeBudget -= range.length;
      return {
        piece: { type: 'either', options: range.map((item) => Array.from(item, (c) => charPiece(c))) },
        end: close + 1,
      };
    }
    const bounds = [open, ...commas, close];
    const options: Piece[][] = [];
    this.braceDepth++;
    for (let k = 0; k + 1 < bounds.length; k++) {
      options.push(this.sequence(bounds[k]! + 1, bounds[k + 1]!, segmentStart, afterEnd));
    }
    this.braceDepth--;
    return { piece: { type: 'either', options }, end: close + 1 };
  }

  /** A bracket expression at `open`; undefined when it does not close (then `[` is literal). */
  private bracket(
    open: number,
    to: number,
  ): { member: (char: string) => boolean; negate: boolean; end: number } | undefined {
    const chars = this.chars;
    let i = open + 1;
    let negate = false;
    if (chars[i] === '!' || chars[i] === '^') {
      negate = true;
      i++;
    }
    // Members as data until the bracket closes (a bracket that never closes builds nothing).
    const ranges: number[] = []; // low, high, low, high...
    const classes: RegExp[] = [];
    let first = true;
    while (i < to) {
      if (--this.scanBudget < 0) return undefined;
      let char = chars[i]!;
      if (char === ']' && !first) {
        const member = (c: string): boolean => {
          const code = c.codePointAt(0)!;
          for (let k = 0; k < ranges.length; k += 2)
            if (code >= ranges[k]! && code <= ranges[k + 1]!) return true;
          return classes.some((posix) => posix.test(c));
        };
        return { member, negate, end: i + 1 };
      }
      first = false;
      if (char === '[' && chars[i + 1] === ':') {
        const near = chars.slice(i + 2, Math.min(to, i + 3 + LONGEST_CLASS)).indexOf(']');
        const close = near < 0 ? -1 : i + 2 + near;
        const name = close > 0 ? chars.slice(i + 2, close).join('') : '';
        const posix = POSIX_CLASSES[name.replace(/:$/, '')];
        if (close > 0 && name.endsWith(':') && posix) {
          classes.push(posix);
          i = close + 1;
          continue;
        }
      }
      if (char === '\\' && i + 1 < to) {
        i++;
        char = chars[i]!;
      }
      if (chars[i + 1] === '-' && i + 2 < to && chars[i + 2] !== ']') {
        let last = chars[i + 2]!;
        let step = 3;
        if (last === '\\' && i + 3 < to) {
          last = chars[i + 3]!;
          step = 4;
        }
        const low = char.codePointAt(0)!;
        const high = last.codePointAt(0)!;
        ranges.push(low, high);
        i += step;
        continue;
      }
      const code = char.codePointAt(0)!;
      ranges.push(code, code);
      i++;
    }
    return undefined;
  }
}

const POSIX_CLASSES: Readonly<Record<string, RegExp>> = {
  alnum: /^[A-Za-z0-9]$/,
  alpha: /^[A-Za-z]$/,
  ascii: /^[\x00-\x7f]$/,
  blank: /^[ \t]$/,
  cntrl: /^[\x00-\x1f\x7f]$/,
  digit: /^[0-9]$/,
  graph: /^[\x21-\x7e]$/,
  lower: /^[a-z]$/,
  print: /^[\x20-\x7e]$/,
  punct: /^[!-/:-@[-`{-~]$/,
  space: /^[ \t\r\n\v\f]$/,
  upper: /^[A-Z]$/,
  word: /^[A-Za-z0-9_]$/,
  xdigit: /^[A-Fa-f0-9]$/,
};

function charPiece(char: string): Piece {
  return { type: 'char', char };
}

/** `1..5`, `5..1`, `a..e` (optionally `..STEP`) as its items; undefined when not a range or over `most`. */
function expandRange(text: string, most: number): string[] | undefined {
  const numbers = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(text);
  const letters = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?$/.exec(text);
  const match = numbers ?? letters;
  if (!match) return undefined;
  const from = numbers ? Number(match[1]) : match[1]!.charCodeAt(0);
  const to = numbers ? Number(match[2]) : match[2]!.charCodeAt(0);
  const step = Math.abs(Number(match[3] ?? 1)) || 1;
  if (Math.abs(to - from) / step + 1 > most) return undefined;
  const items: string[] = [];
  const direction = to >= from ? 1 : -1;
  for (let value = from; direction > 0 ? value <= to : value >= to; value += direction * step)
    items.push(numbers ? String(value) : String.fromCharCode(value));
  return items;
}

// ---- The automaton -------------------------------------------------------------------------------------

/** A state reads one character (a test) or none (`next` plus, for a fork, `alt`); `accept` ends a match. */
interface State {
  test?: (char: string) => boolean;
  next: number;
  alt: number;
  accept?: boolean;
}

const NONE = -1;

class Machine {
  private readonly states: State[] = [];
  /** For each state, the closure it was last added in (`generation`): a state is added once per closure. */
  private seen: Int32Array = new Int32Array(0);
  private generation = 0;
  /** The state sets met so far, by their sorted states; `first`, the one a match starts in. */
  private readonly sets = new Map<string, StateSet>();
  private first: StateSet | undefined;
  private readonly nocase: boolean;

  constructor(nocase: boolean) {
    this.nocase = nocase;
  }

  /** Builds the automaton of `pieces`; its start state. */
  build(pieces: Piece[]): number {
    const accept = this.add({ next: NONE, alt: NONE, accept: true });
    const start = this.sequence(pieces, accept);
    this.seen = new Int32Array(this.states.length);
    return start;
  }

  private add(state: State): number {
    this.states.push(state);
    return this.states.length - 1;
  }

  /** States for `pieces` followed by state `then`: built back to front, so each knows its successor. */
  private sequence(pieces: readonly Piece[], then: number): number {
    let next = then;
    for (let i = pieces.length - 1; i >= 0; i--) next = this.piece(pieces[i]!, next);
    return next;
  }

  private piece(piece: Piece, then: number): number {
    switch (piece.type) {
      case 'char': {
        const wanted = piece.char;
        const test = this.nocase
          ? (c: string) => c === wanted || c.toLowerCase() === wanted.toLowerCase()
          : (c: string) => c === wanted;
        return this.add({ test, next: then, alt: NONE });
      }
      case 'any':
        return this.add({ test: notSlash, next: then, alt: NONE });
      case 'class': {
        // Never '/'; under nocase a letter is a member when either of its cases is.
        const { member, negate } = piece;
        const test = this.nocase
          ? (c: string) =>
              c !== '/' && (member(c) || member(c.toLowerCase()) || member(c.toUpperCase())) !== negate
          : (c: string) => c !== '/' && member(c) !== negate;
        return this.add({ test, next: then, alt: NONE });
      }
      case 'star':
      case 'all': {
        // A loop: fork to read one more character (and come back) or go on.
        const fork = this.add({ next: NONE, alt: then });
        this.states[fork]!.next = this.add({
          test: piece.type === 'star' ? notSlash : anything,
          next: fork,
          alt: NONE,
        });
        return fork;
      }
      case 'optional':
        return this.add({ next: this.sequence(piece.body, then), alt: then });
      case 'either': {
        let entry = this.sequence(piece.options.at(-1)!, then);
        for (let k = piece.options.length - 2; k >= 0; k--)
          entry = this.add({ next: this.sequence(piece.options[k]!, then), alt: entry });
        return entry;
      }
    }
  }

  /** Whether the automaton from `start` accepts all of `path`. */
  run(start: number, path: string): boolean {
    let at = (this.first ??= this.setOf(this.closure([start])));
    for (let i = 0; i < path.length; ) {
      const code = path.codePointAt(i)!;
      i += code > 0xffff ? 2 : 1;
      let next = code < 128 ? at.ascii[code] : at.other.get(code);
      if (next === undefined) {
        next = this.step(at, code);
        if (code < 128) at.ascii[code] = next;
        else at.other.set(code, next);
      }
      if (next.states.length === 0) return false;
      at = next;
    }
    return at.accept;
  }

  /**
   * The set of states after reading `code` from `from`: computed once, then remembered (a lazily built
   * deterministic automaton, as RE2 does). Past MAX_SETS sets the memory is dropped and built anew, so a
   * pattern whose sets would be many costs about the plain simulation per character, never more.
   */
  private step(from: StateSet, code: number): StateSet {
    const char = String.fromCodePoint(code);
    const targets: number[] = [];
    for (const index of from.states) {
      const state = this.states[index]!;
      if (state.test?.(char)) targets.push(state.next);
    }
    if (this.sets.size >= MAX_SETS) {
      this.sets.clear();
      this.first = undefined;
    }
    return this.setOf(this.closure(targets));
  }

  private setOf(states: number[]): StateSet {
    states.sort((a, b) => a - b);
    const key = states.join(',');
    let set = this.sets.get(key);
    if (set === undefined) {
      const accept = states.some((index) => this.states[index]!.accept === true);
      set = { states, accept, ascii: new Array(128), other: new Map() };
      this.sets.set(key, set);
    }
    return set;
  }

  /** The states that read a character (or accept) reached from `starts` without reading one, each once. */
  private closure(starts: readonly number[]): number[] {
    const mark = ++this.generation;
    const found: number[] = [];
    const stack = [...starts];
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (at === NONE || this.seen[at] === mark) continue;
      this.seen[at] = mark;
      const state = this.states[at]!;
      if (state.test || state.accept) found.push(at);
      else stack.push(state.alt, state.next);
    }
    return found;
  }
}

/** A set of automaton states, and where each character read from it leads. */
interface StateSet {
  states: number[];
  accept: boolean;
  /** Where each ASCII character leads (most paths are ASCII: an array is the fastest lookup)... */
  ascii: (StateSet | undefined)[];
  /** ...and every other character. */
  other: Map<number, StateSet>;
}

/**
 * The most state sets a matcher remembers (each about 1 KB with its ASCII table). Ordinary globs meet a
 * few dozen; a pattern built to need more (`*a????????????`) costs at most this much memory, then the
 * plain simulation per character, so a .gitignore of many such lines cannot exhaust memory quickly.
 */
const MAX_SETS = 256;

function notSlash(char: string): boolean {
  return char !== '/';
}

function anything(): boolean {
  return true;
}
