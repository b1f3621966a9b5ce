import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Approver } from '../../src/gate/approval.js';
import { type CreateEditToolsOptions, createEditTools, type EditTools } from '../../src/tools/index.js';
import { onCleanup } from '../cleanup.js';

/** A real temp folder as workspace root, with helpers to put and look at files. */
export async function makeWorkspace(files: Record<string, string | Buffer> = {}) {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'editgate-tools-')));
  onCleanup(() => rm(root, { recursive: true, force: true }));
  const put = async (relative: string, content: string | Buffer) => {
    const path = join(root, relative);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  };
  for (const [relative, content] of Object.entries(files)) await put(relative, content);
  return {
    root,
    put,
    path: (relative: string) => join(root, relative),
    text: (relative: string) => readFile(join(root, relative), 'utf8'),
    bytes: (relative: string) => readFile(join(root, relative)),
    tools: (options: Partial<CreateEditToolsOptions> = {}): EditTools =>
      createEditTools({ root, approve: 'allow', ...options }),
  };
}

/** An approver that answers from a list and remembers what it was asked. */
export function scriptedApprover(...answers: ReturnType<Approver>[]) {
  const asked: Parameters<Approver>[0][] = [];
  const approver: Approver = (request) => {
    asked.push(request);
    const answer = answers.shift();
    if (answer === undefined)
      throw new Error(`approver asked more often than scripted (about ${request.path})`);
    return answer;
  };
  return { approver, asked };
}

/** read_file the whole file, failing the test if the read fails. */
export async function readAll(tools: EditTools, path: string) {
  const result = await tools.execute('read_file', { file_path: path });
  if (!result.ok) throw new Error(`read_file ${path} failed: ${result.message}`);
  return result;
}
