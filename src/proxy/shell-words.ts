import { shellWord } from '../core/shell-word.js';

export { shellWord };

/** The command that puts back what a proxied write replaced, runnable from any folder. */
export function undoCommand(root: string, absolute: string): string {
  return `editgate undo --root ${shellWord(root)} ${shellWord(absolute)}`;
}
