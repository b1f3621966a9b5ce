import { compileGlob } from '../../core/glob.js';
import { type AgentTool, failed, numberInput, textInput } from './agent-tool.js';
import { explore, FOLDER_PROPERTY, offsetProperty, type WorkspaceScope } from './scope.js';

const PAGE = 200;
/** A walk stops here: a glob over a huge tree answers with what it found and says so. */
const MAX_SCANNED = 50_000;

export function globTool(scope: WorkspaceScope): AgentTool {
  return {
    name: 'glob',
    description: [
      'Find files whose path matches a glob, e.g. "src/**/*.ts" or "**/package.json" (paths relative to the searched folder).',
      'Files that .gitignore ignores are skipped. Results are sorted by path, at most 200 per call; use offset to see more.',
    ].join('\n'),
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Glob over paths relative to `path`.' },
        path: FOLDER_PROPERTY,
        offset: offsetProperty('results'),
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    changes: false,
    target: (input) => textInput(input, 'pattern') ?? '',
    async run(input, context) {
      const pattern = textInput(input, 'pattern');
      if (!pattern) return failed('INVALID_INPUT', 'glob needs a "pattern", e.g. "**/*.ts".');
      return explore('glob', async () => {
        const folder = await scope.resolveFolder(input.path);
        const matches = compileGlob(pattern);
        const offset = numberInput(input, 'offset', 0);
        const found: string[] = [];
        let scanned = 0;
        const prefix = folder.relative === '' ? '' : `${folder.relative}/`;
        for await (const entry of scope.walk(
          folder,
          () => context.signal.aborted || scanned >= MAX_SCANNED,
        )) {
          scanned++;
          if (entry.isDir) continue;
          const local = entry.relative.slice(prefix.length);
          if (matches(local)) found.push(entry.relative);
        }
        found.sort();
        const page = found.slice(offset, offset + PAGE);
        const notes: string[] = [];
        if (offset + PAGE < found.length)
          notes.push(
            `Showing ${offset + 1}-${offset + page.length} of ${found.length}. Next: glob with offset=${offset + PAGE}.`,
          );
        if (scanned >= MAX_SCANNED)
          notes.push(`Stopped after ${MAX_SCANNED} entries: search a smaller folder for the rest.`);
        const body = page.length > 0 ? page.join('\n') : `No files match ${pattern}.`;
        return {
          ok: true,
          message: `${body}${notes.length ? `\n(${notes.join(' ')})` : ''}`,
          summary: `${found.length} ${found.length === 1 ? 'file' : 'files'}`,
        };
      });
    },
  };
}
