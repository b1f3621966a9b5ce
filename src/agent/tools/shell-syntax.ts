import type { Node } from 'web-tree-sitter';
import { parserFor } from '../../checks/grammars.js';

/**
 * A bash command line as bash's grammar reads it, for the chat's command policy (command-policy.ts). A
 * security decision never rests on a tokenizer of our own: quotes, `$'...'`, comments and newlines are where
 * a hand-written one and bash disagree, and each disagreement was a way to run a second command.
 *
 * The grammar is tree-sitter-bash (the tree-sitter project's bash grammar, maintained, used by editors and
 * GitHub to read bash), run by web-tree-sitter (WebAssembly: no native build, works on Node 20), both pinned
 * to exact versions in package.json (the grammar as a devDependency whose .wasm the build ships; loaded on the
 * first command, not when the chat starts: checks/grammars.ts). The other
 * candidates: `bash-parser` and its forks are POSIX-only (no `$'...'`, no `<(...)`) and unmaintained;
 * `mvdan-sh` (mvdan/sh through GopherJS) is no longer released; `sh-syntax` (mvdan/sh as WebAssembly) hands
 * back only positions, not the type of a command; `shell-quote` splits words, it does not read bash.
 *
 * tree-sitter recovers from errors rather than refusing, so every tree with an error or a missing token is
 * reported `incomplete`, and a word is given a value only when its text is plain enough that bash and the
 * grammar cannot read it two ways (no expansion, escape, glob, brace or tilde): anything else is `undefined`,
 * and the policy asks.
 */

/** One command anywhere in the line (in a pipeline, a list, a substitution, a function, a loop). */
export interface ShellCommand {
  /** The command name and its arguments; `undefined` for a word whose value the shell computes. */
  words: (string | undefined)[];
}

export interface ShellLine {
  /** The grammar found an error or a missing token: bash may read the line differently. */
  incomplete: boolean;
  /** Every command the line runs, nested ones included, in the order they appear. */
  commands: ShellCommand[];
  /** The whole line is one simple command of plain words: its words. */
  simple?: string[];
  /** Why the line is not one simple command of plain words (for the question). */
  notSimple?: string;
}

export async function readShellLine(text: string): Promise<ShellLine> {
  const parser = await parserFor('bash');
  const tree = parser.parse(text);
  if (!tree) return { incomplete: true, commands: [], notSimple: 'bash could not be read' };
  try {
    const root = tree.rootNode;
    const nodes = root
      .descendantsOfType(['command', 'declaration_command', 'unset_command'])
      .filter((node): node is Node => node !== null);
    const commands = nodes.map((node) => ({ words: commandWords(node) }));
    // Text the grammar keeps as plain but bash may run: a backquote or `$(` it did not read as a
    // substitution (it does not read backquotes in a here-document's body; bash runs one in a quoted
    // array subscript, `test -v 'a[$(id)]'`). Its command cannot be named.
    for (const node of root.descendantsOfType(UNREAD_TYPES)) {
      if (node && /`|\$\(/.test(node.text)) commands.push({ words: [undefined] });
    }
    const simple = simpleCommand(root, text);
    return {
      incomplete: root.hasError || !nodes.every((node) => wordsApart(node, text)),
      commands,
      ...(typeof simple === 'string' ? { notSimple: simple } : { simple }),
    };
  } finally {
    tree.delete();
  }
}

const UNREAD_TYPES = [
  'word',
  'raw_string',
  'string_content',
  'heredoc_body',
  'heredoc_content',
  'regex',
  'extglob_pattern',
];

/**
 * Whether only blanks (or a backslash-newline) stand between the parts of a command, as bash splits them.
 * The grammar has been seen to run a command on past a newline (`echo ==` then `rm x` on the next line
 * read as one command, `rm` its argument); such a tree is not trusted.
 */
function wordsApart(command: Node, text: string): boolean {
  let at = command.startIndex;
  for (const child of command.children) {
    if (!child) return false;
    if (!SEPARATION.test(text.slice(at, child.startIndex))) return false;
    at = child.endIndex;
  }
  return SEPARATION.test(text.slice(at, command.endIndex));
}

const SEPARATION = /^(?:[ \t]|\\\n)*$/;

function commandWords(node: Node): (string | undefined)[] {
  if (node.type !== 'command') {
    // export, declare, local, readonly, typeset, unset: the keyword names it.
    const [keyword, ...rest] = node.children.filter((child): child is Node => child !== null);
    return [keyword?.text, ...rest.filter((child) => child.isNamed).map(plainValue)];
  }
  const name = node.childForFieldName('name');
  const args = node.childrenForFieldName('argument').filter((child): child is Node => child !== null);
  return [name ? commandNameValue(name) : undefined, ...args.map(plainValue)];
}

function commandNameValue(name: Node): string | undefined {
  const [only, ...more] = name.namedChildren;
  if (!only || more.length > 0 || only.startIndex !== name.startIndex || only.endIndex !== name.endIndex)
    return undefined;
  return plainValue(only);
}

/** Characters of an unquoted word that bash takes as they are (no expansion, glob, brace, tilde, escape). */
const PLAIN_WORD = /^[A-Za-z0-9_\-.,:/=@%+^]+$/;
/**
 * The inside of quotes: no control character, `$` or backquote; in double quotes also no backslash. Bash
 * reads a quoted word again as arithmetic where a builtin takes a variable name (`printf -v 'a[$(id)]' x`,
 * `test -v`, `read`, `declare`, `unset`, `let`): the substitution in the subscript runs.
 */
const SINGLE_QUOTED = /^'[^'$`\x00-\x1f\x7f]*'$/;
const DOUBLE_QUOTED = /^"[^"$`\\\x00-\x1f\x7f]*"$/;

/** The word's value when bash cannot read it as anything else; undefined otherwise. */
export function plainValue(node: Node): string | undefined {
  const text = node.text;
  switch (node.type) {
    case 'word':
    case 'number':
      return PLAIN_WORD.test(text) ? text : undefined;
    case 'raw_string':
      return SINGLE_QUOTED.test(text) ? text.slice(1, -1) : undefined;
    case 'string':
      return node.namedChildren.every((child) => child?.type === 'string_content') && DOUBLE_QUOTED.test(text)
        ? text.slice(1, -1)
        : undefined;
    case 'concatenation': {
      let value = '';
      let at = node.startIndex;
      for (const part of node.children) {
        if (!part || part.startIndex !== at) return undefined;
        const partValue = plainValue(part);
        if (partValue === undefined) return undefined;
        value += partValue;
        at = part.endIndex;
      }
      return at === node.endIndex ? value : undefined;
    }
    default:
      return undefined;
  }
}

/** Between the words of a simple command: blanks only. */
const BLANKS = /^[ \t]+$/;

/** The words of a line that is exactly one simple command of plain words, or why it is not. */
function simpleCommand(root: Node, text: string): string[] | string {
  if (root.hasError) return 'bash reads it in a way editgate cannot be sure of (a syntax error)';
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(text)) return 'it has a newline or a control character';
  const named = root.namedChildren.filter((child): child is Node => child !== null);
  if (named.some((child) => child.type === 'comment')) return 'it has a comment';
  const command = named[0];
  if (named.length !== 1 || command?.type !== 'command') return 'it is more than one simple command';
  const start = text.length - text.replace(/^[ \t]+/, '').length;
  const end = text.replace(/[ \t]+$/, '').length;
  if (command.startIndex !== start || command.endIndex !== end)
    return 'it has shell syntax around the command (such as ; or &)';
  const words: string[] = [];
  let at = command.startIndex;
  for (const child of command.children) {
    if (!child) return 'bash could not be read';
    if (child.startIndex !== at && !BLANKS.test(text.slice(at, child.startIndex)))
      return 'it has shell syntax between its words';
    at = child.endIndex;
    if (child.type === 'variable_assignment') return 'it sets variables for the command';
    const value = child.type === 'command_name' ? commandNameValue(child) : plainValue(child);
    if (value === undefined)
      return `bash expands or redirects ${JSON.stringify(child.text)} (a substitution, variable, glob, escape, special quote or redirection)`;
    words.push(value);
  }
  return words;
}
