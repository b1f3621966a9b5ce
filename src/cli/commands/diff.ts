// `editgate diff OLD NEW`: the diff view of two files on a terminal, unified diff text (for `git apply`)
// otherwise; exit codes as diff(1). Start-up matters here (people run it in loops and hooks), so the
// imports below are the light ones every run needs; the codec (and iconv-lite) loads only for files that
// are not plain UTF-8, the renderer only for the view, highlight.js only for colours on a known file type,
// the pager only for a diff taller than the screen.
import { isUtf8 } from 'node:buffer';
import { readFile, stat } from 'node:fs/promises';
import type { Diff } from '../../core/diff.js';
import { isEditgateError } from '../../core/errors.js';
import type { LineHighlighter } from '../../core/highlight.js';
import type { TextCodec } from '../../core/text.js';
import { paint } from '../../terminal/colors.js';
import { type Display, resolveDisplay } from '../../terminal/display.js';
import { paletteFor } from '../../terminal/palette.js';
import { parseCommandLine, UsageError } from '../usage.js';

/** diff(1)'s exit codes. */
export const DIFF_EXIT = { equal: 0, different: 1, trouble: 2 } as const;

const options = { encoding: { type: 'string' } } as const;

export const HELP = `Usage: editgate diff OLD NEW

Show how NEW differs from OLD. On a terminal: the diff view, with old and new line numbers, changed words
emphasised, syntax colours and long lines wrapped; a diff taller than the screen opens full screen (arrows,
PgUp/PgDn, g/G, / search, q back). Piped or redirected: unified diff text with a/ and b/ paths, which
git apply and patch -p1 accept (nothing at all when the files are identical, as diff prints).

/dev/null stands for no file: editgate diff /dev/null NEW shows NEW as created. "-" reads OLD or NEW from
standard input. Files are decoded as editgate reads them (UTF-8, UTF-16 by its byte-order mark, or
--encoding); line endings and byte-order marks are shown as they are. Binary files are described, not shown.

Options:
  --encoding ENC    decode both files as ENC (e.g. windows-1252, latin1, shift_jis); default: UTF-8, or
                    UTF-16 when the file starts with its byte-order mark
  --no-color        no colours (NO_COLOR is respected too; FORCE_COLOR shows the coloured view even when
                    the output is not a terminal)
  --theme THEME     dark, light or auto (default: auto, from the terminal when it tells)
  -h, --help        show help

Exit codes (as diff(1)):
  0  the files are identical
  1  they differ
  2  trouble: a missing or unreadable file, a folder, a file that does not decode, bad options`;

/** Trouble that is not a wrong command line: printed without the pointer to --help. */
class Trouble extends Error {}

/** One side of the diff, as read. */
interface Side {
  /** As given on the command line. */
  path: string;
  /** `/dev/null`: no file at all (a created or deleted file). */
  none: boolean;
  bytes: Buffer;
}

type Content = { binary: true } | { binary: false; text: string; codec: Pick<TextCodec, 'encoding' | 'bom'> };

export async function run(args: string[]): Promise<number> {
  // `editgate diff ... | head` closes the pipe early: that is not an error worth a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') return;
    process.stderr.write(`editgate diff: cannot write the output: ${error.message}\n`);
    process.exitCode = DIFF_EXIT.trouble;
  });
  try {
    const line = parseCommandLine(args, options, ['no-color', 'theme']);
    if (line.help) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    if (line.positionals.length !== 2) {
      const got = line.positionals.length === 0 ? 'none' : line.positionals.join(', ');
      throw new UsageError(`give two files, OLD and NEW (got ${got})`);
    }
    const [oldPath, newPath] = line.positionals as [string, string];
    if (oldPath === '-' && newPath === '-') {
      throw new UsageError('only one of OLD and NEW can be standard input ("-")');
    }
    const encoding = line.values.encoding;
    if (encoding !== undefined) {
      const { normalizeEncodingName } = await import('../../core/text.js');
      normalizeEncodingName(encoding); // an unknown name fails here, before any file is read
    }
    const [oldSide, newSide] = await Promise.all([readSide(oldPath), readSide(newPath)]);
    const output = process.stdout;
    const columns = output.isTTY ? undefined : columnsFromEnvironment();
    const display = resolveDisplay({
      output,
      noColor: line.globals.noColor,
      theme: line.globals.theme,
      ...(columns !== undefined ? { width: columns } : {}),
    });
    // The view on a terminal, or when colour is forced (`FORCE_COLOR=1 editgate diff a b | less -R`);
    // otherwise text for programs.
    const view = output.isTTY === true || display.level > 0;
    return await compare(oldSide, newSide, { encoding, view, display });
  } catch (error) {
    return failure(error);
  }
}

function failure(error: unknown): number {
  const text = error instanceof Error ? error.message : String(error);
  const message = /[.!?]$/.test(text) ? text : `${text}.`;
  const hint = error instanceof UsageError ? ' Run editgate diff --help for its options.' : '';
  if (!(error instanceof UsageError || error instanceof Trouble || isEditgateError(error))) throw error;
  process.stderr.write(`editgate diff: ${message}${hint}\n`);
  return DIFF_EXIT.trouble;
}

/** `COLUMNS`, for the width of a coloured view that goes to a pipe. */
function columnsFromEnvironment(): number | undefined {
  const columns = Number.parseInt(process.env.COLUMNS ?? '', 10);
  return columns > 0 ? columns : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Reading

async function readSide(path: string): Promise<Side> {
  if (path === '/dev/null') return { path, none: true, bytes: Buffer.alloc(0) };
  if (path === '-') return { path, none: false, bytes: await readStandardInput() };
  try {
    // stat first: reading a folder fails with a less helpful message on some systems.
    if ((await stat(path)).isDirectory()) {
      throw new Trouble(`${path} is a folder; editgate diff compares two files.`);
    }
    return { path, none: false, bytes: await readFile(path) };
  } catch (error) {
    if (error instanceof Trouble) throw error;
    throw new Trouble(`cannot read ${path}: ${readProblem(path, error as NodeJS.ErrnoException)}`);
  }
}

function readProblem(path: string, error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return path.includes('/') || path.includes('\\')
        ? 'no such file (or a folder on its path is missing). For a file that does not exist, give /dev/null.'
        : 'no such file. For a file that does not exist, give /dev/null.';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied.';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder.';
    case 'ELOOP':
      return 'too many symbolic links (a link loop?).';
    case 'EISDIR':
      return 'it is a folder; editgate diff compares two files.';
    default:
      return error.message;
  }
}

async function readStandardInput(): Promise<Buffer> {
  if (process.stdin.isTTY) {
    throw new UsageError(
      '"-" reads standard input, which is the terminal: pipe the text in (... | editgate diff - NEW)',
    );
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// ---------------------------------------------------------------------------------------------------------
// Decoding

/**
 * The bytes as text, with editgate's codec. Most files are UTF-8 without a byte-order mark or NUL bytes;
 * for those `decodeText` does exactly what is done here, so the codec (and iconv-lite with it) is loaded
 * only for the others: byte-order marks, UTF-16, other encodings, binary files.
 */
async function decode(side: Side, encoding: string | undefined): Promise<Content> {
  const { bytes } = side;
  // Only the UTF-8 one needs a look: the UTF-16 marks (FF FE, FE FF) are never valid UTF-8.
  const utf8Bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  if (encoding === undefined && !utf8Bom && bytes.indexOf(0) < 0 && isUtf8(bytes)) {
    return { binary: false, text: bytes.toString('utf8'), codec: { encoding: 'utf8', bom: false } };
  }
  const { decodeText, isBinary } = await import('../../core/text.js');
  if (encoding === undefined && isBinary(bytes)) return { binary: true };
  try {
    const { text, codec } = decodeText(bytes, encoding === undefined ? undefined : { encoding });
    return { binary: false, text, codec };
  } catch (error) {
    if (!isEditgateError(error)) throw error;
    if (error.code === 'BINARY') return { binary: true };
    const { details } = error;
    if (error.code === 'ENCODING' && typeof details.line === 'number' && typeof details.byte === 'number') {
      const what = encoding === undefined ? 'UTF-8' : encoding;
      throw new Trouble(
        `${side.path} is not valid ${what}: byte 0x${details.byte.toString(16).toUpperCase().padStart(2, '0')} ` +
          `at byte offset ${details.offset} (line ${details.line}) does not decode. Give its encoding with ` +
          '--encoding, e.g. --encoding windows-1252 (Western European), --encoding shift_jis (Japanese).',
      );
    }
    throw new Trouble(`${side.path}: ${error.message}`);
  }
}

/** "UTF-8", "UTF-8 with BOM", "UTF-16LE with BOM", "windows1252". */
function describeCodec(codec: Pick<TextCodec, 'encoding' | 'bom'>): string {
  const names: Record<string, string> = { utf8: 'UTF-8', utf16le: 'UTF-16LE', utf16be: 'UTF-16BE' };
  return `${names[codec.encoding] ?? codec.encoding}${codec.bom ? ' with BOM' : ''}`;
}

const BOM_CHAR = '\uFEFF';

// ---------------------------------------------------------------------------------------------------------
// Comparing

interface CompareOptions {
  encoding: string | undefined;
  /** The diff view (else unified text). */
  view: boolean;
  display: Display;
}

async function compare(oldSide: Side, newSide: Side, options: CompareOptions): Promise<number> {
  // Equal bytes are equal files, as for diff(1), whatever they decode to.
  if (oldSide.bytes.equals(newSide.bytes)) {
    if (options.view) {
      process.stdout.write(`Files ${oldSide.path} and ${newSide.path} are identical\n`);
    }
    return DIFF_EXIT.equal;
  }
  const [oldContent, newContent] = await Promise.all([
    decode(oldSide, options.encoding),
    decode(newSide, options.encoding),
  ]);
  if (oldContent.binary || newContent.binary) {
    if (options.view) await showBinaryView(oldSide, newSide, options.display);
    else
      process.stdout.write(`Binary files ${gitPath(oldSide, 'a/')} and ${gitPath(newSide, 'b/')} differ\n`);
    return DIFF_EXIT.different;
  }
  const texts = options.view
    ? viewTexts(oldContent, newContent)
    : { old: patchText(oldContent), new: patchText(newContent) };
  const { diffLines } = await import('../../core/diff.js');
  const diff = diffLines(texts.old, texts.new);
  const encodings =
    describeCodec(oldContent.codec) === describeCodec(newContent.codec) || oldSide.none || newSide.none
      ? undefined
      : `${describeCodec(oldContent.codec)} → ${describeCodec(newContent.codec)}`;
  if (diff.identical) {
    // Different bytes, same text: only the encoding differs (UTF-16 and UTF-8, say).
    const paths = options.view
      ? [oldSide.path, newSide.path]
      : [gitPath(oldSide, 'a/'), gitPath(newSide, 'b/')];
    const codecs = [oldSide, newSide].map((side, i) =>
      side.none ? 'no file' : describeCodec((i === 0 ? oldContent : newContent).codec),
    );
    process.stdout.write(
      `Files ${paths[0]} and ${paths[1]} differ only in encoding (${codecs[0]} → ${codecs[1]})\n`,
    );
    return DIFF_EXIT.different;
  }
  if (options.view) await showView(oldSide, newSide, diff, encodings, options.display);
  else process.stdout.write(await patchBytes(oldSide, newSide, diff, oldContent.codec, newContent.codec));
  return DIFF_EXIT.different;
}

/**
 * The texts the view compares: decoded text, with the byte-order mark as a visible U+FEFF on line 1 of the
 * side that has one when only one side does (so that change shows where it is).
 */
function viewTexts(oldContent: Content & { binary: false }, newContent: Content & { binary: false }) {
  const differ = oldContent.codec.bom !== newContent.codec.bom;
  const mark = (content: Content & { binary: false }) => (differ && content.codec.bom ? BOM_CHAR : '');
  return { old: mark(oldContent) + oldContent.text, new: mark(newContent) + newContent.text };
}

/**
 * The text a patch carries for a side: the file's own lines, byte-order mark included (as U+FEFF at the
 * start, which encodes back to the mark's bytes), so the patch applies to the file's exact bytes.
 */
function patchText(content: Content & { binary: false }): string {
  return content.codec.bom && patchEncoding(content.codec) !== undefined
    ? BOM_CHAR + content.text
    : content.text;
}

/** The encoding patch lines for a side are written in, or undefined when a patch cannot hold it (UTF-16). */
function patchEncoding(codec: Pick<TextCodec, 'encoding'>): string | undefined {
  if (codec.encoding === 'utf8') return 'utf8';
  if (codec.encoding.startsWith('utf16') || codec.encoding.startsWith('utf32')) return undefined;
  return codec.encoding;
}

/**
 * A path as git writes it after its a/ or b/ prefix: as given, without leading slashes (`a/tmp/x`, not
 * `a//tmp/x`) and with "/" separators; /dev/null as is. `formatUnifiedDiff` adds the prefix itself.
 */
function gitPath(side: Side, prefix?: string): string {
  if (side.none) return '/dev/null';
  const path = (process.platform === 'win32' ? side.path.replaceAll('\\', '/') : side.path).replace(
    /^\/+/,
    '',
  );
  return (prefix ?? '') + path;
}

/**
 * The unified diff as bytes. Lines are written in the files' encoding when a patch can hold it (UTF-8, or
 * an ASCII-compatible --encoding such as windows-1252), so `git apply` finds the files' exact bytes; UTF-16
 * lines are written as UTF-8 (git itself treats UTF-16 files as binary).
 */
async function patchBytes(
  oldSide: Side,
  newSide: Side,
  diff: Diff,
  oldCodec: Pick<TextCodec, 'encoding' | 'bom'>,
  newCodec: Pick<TextCodec, 'encoding' | 'bom'>,
): Promise<Buffer> {
  const { formatUnifiedDiff } = await import('../../core/diff.js');
  const text = formatUnifiedDiff(diff, { oldPath: gitPath(oldSide), newPath: gitPath(newSide) });
  const encoding = patchEncoding(oldSide.none ? newCodec : oldCodec);
  if (
    encoding === undefined ||
    encoding === 'utf8' ||
    encoding !== patchEncoding(newSide.none ? oldCodec : newCodec)
  ) {
    return Buffer.from(text, 'utf8');
  }
  const { encodeText } = await import('../../core/text.js');
  const codec: TextCodec = { encoding, bom: false, eol: '\n', mixedEol: false, finalNewline: true };
  const probe = '@@ -+\\ No newline\n';
  if (!encodeText(probe, codec).equals(Buffer.from(probe, 'latin1'))) return Buffer.from(text, 'utf8');
  // The two header lines (paths) stay UTF-8, as file names are; the hunks are the files' own bytes.
  const headerEnd = text.indexOf('\n', text.indexOf('\n') + 1) + 1;
  return Buffer.concat([
    Buffer.from(text.slice(0, headerEnd), 'utf8'),
    encodeText(text.slice(headerEnd), codec),
  ]);
}

// ---------------------------------------------------------------------------------------------------------
// The view

type Kind = 'create' | 'modify' | 'delete';

function kindOf(oldSide: Side, newSide: Side): Kind {
  return oldSide.none ? 'create' : newSide.none ? 'delete' : 'modify';
}

/** The header's path: one path, or "OLD → NEW" when they differ (a created or deleted file: the one). */
function viewPath(oldSide: Side, newSide: Side): string {
  if (oldSide.none) return newSide.path;
  if (newSide.none || oldSide.path === newSide.path) return oldSide.path;
  return `${oldSide.path} → ${newSide.path}`;
}

async function showBinaryView(oldSide: Side, newSide: Side, display: Display): Promise<void> {
  const { renderDiff } = await import('../../terminal/diff-view.js');
  const sizes = {
    ...(oldSide.none ? {} : { oldSize: oldSide.bytes.length }),
    ...(newSide.none ? {} : { newSize: newSide.bytes.length }),
  };
  const empty: Diff = { hunks: [], added: 0, removed: 0, identical: false };
  const lines = renderDiff(
    { path: viewPath(oldSide, newSide), kind: kindOf(oldSide, newSide), diff: empty, binary: sizes },
    { width: display.width, color: display.level, theme: display.theme },
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function showView(
  oldSide: Side,
  newSide: Side,
  diff: Diff,
  encodings: string | undefined,
  display: Display,
): Promise<void> {
  const { renderDiff } = await import('../../terminal/diff-view.js');
  // Syntax colours need 256 colours or more (they sit on the line tints); below that, nothing is loaded.
  let highlighter: LineHighlighter | undefined;
  if (display.level >= 2) {
    const { loadHighlighter } = await import('../../core/highlight.js');
    const typed = newSide.none || newSide.path === '-' ? oldSide : newSide;
    highlighter = await loadHighlighter(typed.path);
  }
  const change = { path: viewPath(oldSide, newSide), kind: kindOf(oldSide, newSide), diff };
  const note = encodings && paint(`Encoding: ${encodings}`, paletteFor(display.theme).note, display.level);
  const render = (width: number): string[] => {
    const lines = renderDiff(change, {
      width,
      color: display.level,
      theme: display.theme,
      tabWidth: display.tabWidth,
      ...(highlighter ? { highlighter } : {}),
    });
    return note ? [...lines, note] : lines;
  };
  const lines = render(display.width);
  const { stdin, stdout } = process;
  // Taller than the screen (one row is kept for the shell's prompt after it): full screen, never cut.
  if (stdout.isTTY && stdin.isTTY && lines.length >= display.height) {
    const { runPager } = await import('../../terminal/pager.js');
    let shown = lines;
    await runPager((width) => (shown = render(width)), {
      output: stdout,
      input: stdin,
      color: display.level,
      theme: display.theme,
    });
    // The pager leaves the screen as it was; the header stays as a trace of what was shown.
    stdout.write(`${shown[0] ?? ''}\n`);
    return;
  }
  stdout.write(`${lines.join('\n')}\n`);
}
