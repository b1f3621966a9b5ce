import { type AgentTool, numberInput, textInput } from './agent-tool.js';
import { explore, FOLDER_PROPERTY, offsetProperty, type WorkspaceScope } from './scope.js';

const PAGE = 200;

export function listDirTool(scope: WorkspaceScope): AgentTool {
  return {
    name: 'list_dir',
    description: [
      'List the entries of a folder of the workspace (default: the root), one per line; folders end with "/".',
      'Entries that .gitignore ignores are counted, not listed. At most 200 entries per call; use offset to see more.',
    ].join('\n'),
    inputSchema: {
      type: 'object',
      properties: {
        path: FOLDER_PROPERTY,
        offset: offsetProperty('entries'),
      },
      additionalProperties: false,
    },
    changes: false,
    target: (input) => textInput(input, 'path') || '.',
    async run(input) {
      return explore('list_dir', async () => {
        const folder = await scope.resolveFolder(input.path);
        const entries = await scope.list(folder);
        const offset = numberInput(input, 'offset', 0);
        const page = entries.slice(offset, offset + PAGE);
        const prefix = folder.relative === '' ? '' : `${folder.relative}/`;
        const lines = page.map((entry) => `${entry.relative.slice(prefix.length)}${entry.isDir ? '/' : ''}`);
        for (const link of offset === 0 ? (entries.links ?? []) : [])
          lines.push(`${link.slice(prefix.length)}@ (symbolic link)`);
        const notes: string[] = [];
        if (offset + PAGE < entries.length)
          notes.push(
            `Showing ${offset + 1}-${offset + page.length} of ${entries.length}. Next: list_dir with offset=${offset + PAGE}.`,
          );
        if (entries.ignored) notes.push(`${entries.ignored} entries ignored by .gitignore are not listed.`);
        const shown = folder.relative || '.';
        const body = lines.length > 0 ? lines.join('\n') : '(empty)';
        return {
          ok: true,
          message: `${shown}/\n${body}${notes.length ? `\n(${notes.join(' ')})` : ''}`,
          summary: `${entries.length} entries`,
        };
      });
    },
  };
}
