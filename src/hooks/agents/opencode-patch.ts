/**
 * OpenCode's apply_patch (1.18.33; offered instead of edit and write to GPT models) is a port of Codex's:
 * where a patch's lines match the file exactly it writes what Codex's does (codex-patch.ts), which is all
 * editgate lets through. Its parser is looser than Codex's and editgate's, though, and reads some patches
 * differently; those are refused here, before either reading, with what to send instead:
 *
 *   - lines of an updated file before its first "@@" line: OpenCode skips them (Codex and editgate read
 *     them as the first hunk);
 *   - an empty line in a hunk: OpenCode drops it (Codex and editgate read an empty context line);
 *   - a unified diff's "@@ -12,7 +12,8 @@" line: OpenCode looks for "-12,7 +12,8 @@" as a line of the file;
 *   - a new file whose last line is empty: OpenCode drops that line;
 *   - carriage returns in the patch: OpenCode keeps them in the lines it looks for.
 */
import { anchorText } from '../../core/patch.js';

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';

/** The patch text as OpenCode reads it: trimmed, and out of a `cat <<'EOF'` wrapper. */
function openCodeLines(patch: string): string[] {
  const trimmed = patch.trim();
  const heredoc = /^(?:cat\s+)?<<['"]?(\w+)['"]?\s*\n([\s\S]*?)\n\1\s*$/.exec(trimmed);
  return (heredoc ? heredoc[2]! : trimmed).split('\n');
}

/** Why OpenCode's apply_patch would read this patch otherwise than editgate, or undefined. */
export function openCodePatchProblem(patch: string): string | undefined {
  const refuse = (why: string) =>
    `editgate refuses this patch: ${why}, so editgate cannot show what it would write. Nothing was written.`;
  if (patch.includes('\r'))
    return refuse(
      "it has carriage returns, which OpenCode's apply_patch keeps in the lines it looks for. Send the patch with \\n line ends",
    );
  const lines = openCodeLines(patch);
  const begin = lines.findIndex((line) => line.trim() === BEGIN);
  const end = lines.findIndex((line) => line.trim() === END);
  // Without both markers, in order, both refuse the patch: editgate's parser says why.
  if (begin === -1 || end === -1 || begin >= end) return undefined;
  let section: 'other' | 'add' | 'update-head' | 'update-hunk' = 'other';
  let lastAdded: string | undefined;
  const newFileEnd = (): string | undefined =>
    section === 'add' && lastAdded === '+'
      ? refuse(
          "a new file's last line is empty, and OpenCode's apply_patch drops it. End the file's lines with the last one that has text (the file still ends with a line break)",
        )
      : undefined;
  for (let index = begin + 1; index < end; index++) {
    const line = lines[index]!;
    const at = `line ${index + 1} of the patch`;
    if (line.startsWith('*** ')) {
      const header = /^\*\*\* (Add|Delete|Update) File:/.exec(line);
      if (header) {
        const problem = newFileEnd();
        if (problem) return problem;
        section = header[1] === 'Add' ? 'add' : header[1] === 'Update' ? 'update-head' : 'other';
        lastAdded = undefined;
      }
      // "*** Move to:" and "*** End of File" keep the section; anything else, editgate's parser refuses.
      continue;
    }
    if (section === 'add') lastAdded = line;
    else if (section === 'update-head' || section === 'update-hunk') {
      if (line.startsWith('@@')) {
        if (anchorText(line) !== line.slice(2).trim())
          return refuse(
            `${at} is a unified diff's "@@ -N,M +N,M @@" line, which OpenCode's apply_patch looks for as a line of the file. Put the line of text the hunk comes after (or nothing) after "@@"`,
          );
        section = 'update-hunk';
      } else if (section === 'update-head' && line.trim() !== '')
        return refuse(
          `${at} comes before the first "@@" of its file, and OpenCode's apply_patch skips such lines. Start each file's first hunk with "@@"`,
        );
      else if (section === 'update-hunk' && line === '')
        return refuse(
          `${at} is empty, and OpenCode's apply_patch drops it where editgate reads an empty context line. Write an empty context line as a single space`,
        );
    }
  }
  return newFileEnd();
}
