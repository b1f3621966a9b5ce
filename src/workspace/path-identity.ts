/**
 * One identity for a path, whoever looks at it (issue #26). On Linux a name is bytes: `café` written with a
 * precomposed é (NFC) and with e + a combining accent (NFD) are two names that look the same. Servers do not
 * all agree: the reference filesystem server, given a name that does not exist as such, uses an existing
 * entry that is the same under NFC. When editgate took the bytes and the server took the name, a question
 * showed one file while the server wrote another, undo knew nothing of it, and a deny glob on `clés/**`
 * missed a folder whose name was the other form.
 *
 * So: a file is the name as it exists on disk, found by the guard (the bytes given when they exist; else
 * the one entry that is the same under NFC; else, for a new file, the bytes given), and everything after
 * the guard (globs, questions, history, verification) uses that. Globs match the NFC form of both the
 * pattern and the path, so a rule catches a name in either form.
 */
import { readdirSync } from 'node:fs';
import { EditgateError } from '../core/errors.js';

/**
 * The entry of `folder` that is `name` under NFC when `name` itself does not exist there; undefined when
 * there is none (a new name). INVALID_INPUT when several entries are (the path is ambiguous: the server
 * refuses it too). Every missing name is looked for, ASCII ones included: the Kelvin sign (U+212A) is `K`
 * under NFC.
 */
export function nameOnDisk(folder: string, name: string, label: string): string | undefined {
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return undefined; // not a folder that can be listed: the name stays as given, and the walk says why
  }
  const wanted = name.normalize('NFC');
  const same = entries.filter((entry) => entry !== name && entry.normalize('NFC') === wanted);
  if (same.length > 1) {
    throw new EditgateError(
      'INVALID_INPUT',
      `'${label}' names ${same.length} entries that look the same but are written differently (Unicode normalization), so it is not clear which one is meant. Ask the user to rename one of them.`,
      { path: label, reason: 'ambiguous-name' },
    );
  }
  return same[0];
}

/** The form of a path or a glob that globs are matched in: NFC, for matching only (never to open a file). */
export function matchForm(text: string): string {
  return text.normalize('NFC');
}
