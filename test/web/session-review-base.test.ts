/**
 * A session review on the review page (gate/session-review.ts's question, web/review-queue.ts's stale
 * watch): each file is compared with what the session left, the question's base, and not with what the page
 * found when the question arrived. A file changed in between (after the review read it, before the page
 * first looked) is stale on the page, and every answer is refused there, with nothing reverted.
 */
import { writeFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { openSessionReview } from '../../src/gate/session-review.js';
import { startReviewServer } from '../../src/web/review-server.js';
import { sha256 } from '../../src/workspace/fingerprint.js';
import { readSession } from '../../src/workspace/session-log.js';
import { tempFolder } from '../temp-folder.js';
import { makeWorkspace, readAll } from '../tools/workspace-fixture.js';
import { firstQueued, signIn } from './review-fixture.js';

it('a file changed before the page first looked at it is stale there: the answer is refused, nothing reverted', async () => {
  const ws = await makeWorkspace({ 'a.txt': 'one\ntwo\n' });
  const stateDir = tempFolder('editgate-session-base-');
  const tools = ws.tools({ stateDir, sessionLog: { id: 'run-1', face: 'library', label: 'the test' } });
  await readAll(tools, 'a.txt');
  await tools.execute('write_file', { file_path: 'a.txt', content: 'one\nTWO\n' });
  const review = await openSessionReview((await readSession(stateDir, 'run-1'))!);
  const question = review.question!;
  expect(question.files[0]!.base?.fingerprint).toMatchObject({ hash: sha256(Buffer.from('one\nTWO\n')) });

  // Someone writes the file after the review read it, before the page gets the question.
  await writeFile(ws.path('a.txt'), 'one\nTWO\nmine\n');
  const server = await startReviewServer({ root: ws.root, source: 'the test' });
  try {
    const decided = server.ask(question).catch((error: Error) => error);
    const id = await firstQueued(server);
    const person = await signIn(server);
    const answer = await person.decide(id, { decision: 'deny', hash: server.queue.get(id)!.hash });
    expect(answer.status, answer.body).toBe(409);
    expect(answer.body).toContain('A file of this review changed on disk after it was shown');
    expect(await ws.text('a.txt')).toBe('one\nTWO\nmine\n');
    await server.close();
    expect(await decided).toBeInstanceOf(Error);
  } finally {
    await server.close();
  }
});
