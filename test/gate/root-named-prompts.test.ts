import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderCard } from '../../src/agent/ui/card.js';
import type { ApprovalRequest } from '../../src/gate/approval.js';
import { promptMessage } from '../../src/mcp/elicit.js';
import { changeMessage as proxyMessage } from '../../src/proxy/approvals.js';
import { noTerminalMessage } from '../../src/terminal/no-terminal.js';
import { paletteFor } from '../../src/terminal/palette.js';
import { createTerminalApprover } from '../../src/terminal/prompt.js';
import { createEditTools } from '../../src/tools/index.js';
import { fileHeading } from '../../src/web/diff-html.js';
import { filesOf } from '../../src/web/review-files.js';
import { tempFolder } from '../temp-folder.js';
import { fakeInput, fakeOutput } from '../terminal/streams.js';
import { scriptedApprover } from '../tools/workspace-fixture.js';

/** Two roots holding the same relative path, and the requests a person is asked about each. */
async function twoRoots(names: [string, string]) {
  const base = tempFolder('editgate-root-named-');
  const roots = names.map((name) => join(base, name));
  for (const root of roots) {
    await mkdir(join(root, 'src'), { recursive: true });
    await writeFile(join(root, 'src', 'app.ts'), 'const x = 1;\n');
  }
  return roots;
}

async function askedAbout(roots: string[], policy?: { rules: { tool: string; action: 'ask' }[] }) {
  const { approver, asked } = scriptedApprover(
    ...roots.flatMap(() => ['once', 'once', 'once', 'once'] as const),
  );
  const tools = createEditTools({ root: roots, approve: approver, ...(policy && { policy }) });
  for (const root of roots) {
    const file_path = join(root, 'src/app.ts');
    await tools.execute('read_file', { file_path });
    expect((await tools.execute('edit_file', { file_path, old_string: '1', new_string: '2' })).ok).toBe(true);
  }
  return asked as ApprovalRequest[];
}

/** What each front end shows a person for `request`, colours off. */
async function shown(request: ApprovalRequest) {
  const input = fakeInput();
  const out = fakeOutput();
  const terminal = createTerminalApprover({ input, output: out.output, color: 0, width: 100, height: 40 });
  input.write('y');
  await terminal(request);
  const look = { width: 100, level: 0 as const, palette: paletteFor('dark') };
  const files = filesOf(request);
  return {
    terminal: out.text(),
    card: renderCard({ kind: 'change', request }, look).join('\n'),
    mcp: promptMessage(request),
    proxy: proxyMessage('fs-server', request),
    noTerminal: noTerminalMessage(request),
    web: files.map((file) => fileHeading(file)).join('\n'),
  };
}

describe('prompts name the root when there are several (issue #13)', () => {
  it('two roots with the same src/app.ts: every front end names which one is asked about', async () => {
    const roots = await twoRoots(['api', 'web']);
    const asked = await askedAbout(roots);
    const changes = asked.filter((request) => request.kind !== 'read');
    expect(changes.map((request) => request.root)).toEqual(['api', 'web']);
    const [api, web] = await Promise.all(changes.map(shown));
    for (const [views, name] of [
      [api!, 'api'],
      [web!, 'web'],
    ] as const) {
      expect(views.terminal).toContain(`Apply this edit to src/app.ts (root ${name})?`);
      expect(views.terminal).toContain(`⚙ edit_file(path=src/app.ts) in root ${name}`);
      expect(views.card).toContain(`Apply this edit to src/app.ts (root ${name})?`);
      expect(views.mcp).toContain(`edit_file wants to modify src/app.ts (root ${name})`);
      expect(views.proxy).toContain(`wants to change src/app.ts (root ${name})`);
      expect(views.noTerminal).toContain(`The edit to src/app.ts (root ${name}) needs approval`);
      expect(views.web).toContain(`src/app.ts (root ${name})`);
    }
    // The two questions differ: a person can tell which file each is about.
    expect(api!.terminal).not.toBe(web!.terminal);
  });

  it('roots with the same folder name are told apart by their parents', async () => {
    const base = tempFolder('editgate-root-named-');
    const roots = [join(base, 'one', 'app'), join(base, 'two', 'app')];
    for (const root of roots) {
      await mkdir(join(root, 'src'), { recursive: true });
      await writeFile(join(root, 'src', 'app.ts'), 'const x = 1;\n');
    }
    const asked = await askedAbout(roots);
    expect(asked.filter((r) => r.kind !== 'read').map((r) => r.root)).toEqual(['one/app', 'two/app']);
  });

  it('a read question names the root too', async () => {
    const roots = await twoRoots(['api', 'web']);
    const asked = await askedAbout(roots, { rules: [{ tool: 'read_file', action: 'ask' }] });
    const reads = asked.filter((request) => request.kind === 'read');
    const questions = reads.map((request) => request.question);
    expect(questions).toContain('Read src/app.ts (root api)?');
    expect(questions).toContain('Read src/app.ts (root web)?');
    expect(promptMessage(reads[0]!)).toContain('read_file needs to read src/app.ts (root api).');
  });

  it('with one root, the path is shown alone', async () => {
    const [root] = await twoRoots(['only', 'unused']);
    const asked = await askedAbout([root!]);
    const [change] = asked.filter((request) => request.kind !== 'read');
    expect(change!.root).toBeUndefined();
    const views = await shown(change!);
    expect(views.terminal).toContain('Apply this edit to src/app.ts?');
    expect(views.mcp).toContain('edit_file wants to modify src/app.ts (+1 -1)');
    expect(views.web).not.toContain('(root');
  });

  it('a hostile root name is shown with its control characters made visible', async () => {
    const roots = await twoRoots(['api\u001b[2J', 'web']);
    const asked = await askedAbout(roots);
    const [change] = asked.filter((request) => request.kind !== 'read');
    const views = await shown(change!);
    expect(views.terminal).not.toContain('\u001b[2J');
    expect(views.mcp).not.toContain('\u001b[2J');
  });
});
