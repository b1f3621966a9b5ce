/**
 * A word as a POSIX shell reads it back unchanged: as it is when plain, else in single quotes. The one rule
 * for every command line editgate shows a person or writes into a config (the trust command, the proxy's
 * upstream and undo lines, the hook command an agent's config runs).
 */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** Several words as one command line. */
export function shellLine(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}
