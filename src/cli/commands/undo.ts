// `editgate undo FILE`: put back what FILE was before editgate's last change to it.
import { CHANGE_GLOBALS, type FileCommand, oneFile, runFileCommand } from '../file-command.js';

export const HELP = `Usage: editgate undo FILE

Undo editgate's last change to FILE (made by an editgate command, or by anything else that keeps its
history in the same state folder), putting back its previous content; a file editgate created is deleted.
Refused if FILE changed since in any other way. Run again to step further back. The undo is shown and
approved like any other change. History is kept in $EDITGATE_STATE_DIR, else ~/.local/state/editgate
(never $XDG_STATE_HOME, which MCP clients drop), unless the config file sets "stateDir". The file keeps its encoding.

Options:`;

export const undoCommand: FileCommand<Record<string, never>> = {
  name: 'undo',
  help: HELP,
  options: {},
  globals: CHANGE_GLOBALS,
  requireReadBeforeEdit: false,
  encoding: false,
  async toToolCall({ positionals }) {
    return { tool: 'undo_edit', input: { file_path: oneFile('undo', positionals) }, stdinBusy: false };
  },
};

export const run = (args: string[]) => runFileCommand(undoCommand, args);
