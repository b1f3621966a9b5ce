/** A word as a POSIX shell reads it back unchanged: as it is when plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** The command that puts back what a proxied write replaced, runnable from any folder. */
export function undoCommand(root: string, absolute: string): string {
  return `editgate undo --root ${shellWord(root)} ${shellWord(absolute)}`;
}
