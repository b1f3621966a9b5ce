import { describe, expect, it } from 'vitest';
import { createEditTools } from '../../src/index.js';
import { startReviewServer } from '../../src/web/index.js';
import { makeWorkspace } from '../tools/workspace-fixture.js';
import { firstQueued, signIn } from './review-fixture.js';

describe('the review page from the library', () => {
  it('as the README shows it: an approver for createEditTools, answered through the page', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\n' });
    const review = await startReviewServer({ root: ws.root });
    try {
      const tools = createEditTools({ root: ws.root, approve: (request) => review.ask(request) });
      await tools.execute('read_file', { file_path: 'a.txt' });
      const result = tools.execute('write_file', { file_path: 'a.txt', content: 'two\n' });
      const queued = await firstQueued(review);
      const person = await signIn(review);
      const answer = await person.decide(queued, { hash: review.queue.get(queued)!.hash, decision: 'once' });
      expect(answer.status).toBe(200);
      expect((await result).ok).toBe(true);
      expect(await ws.text('a.txt')).toBe('two\n');
    } finally {
      await review.close();
    }
  });

  it('a question to read a file (a policy that asks before reads) is answered on the page too', async () => {
    const ws = await makeWorkspace({ 'secret.txt': 'k\n' });
    const review = await startReviewServer({ root: ws.root });
    try {
      const tools = createEditTools({
        root: ws.root,
        approve: (request) => review.ask(request),
        policy: { rules: [{ tool: 'read_file', action: 'ask' }] },
      });
      const result = tools.execute('read_file', { file_path: 'secret.txt' });
      const id = await new Promise<string>((resolve) =>
        review.queue.subscribe((event) => resolve(event.item.id)),
      );
      const person = await signIn(review);
      const page = await person.get(`/fragments/change?change=${id}`);
      expect(page.body).toContain('<h1>Read secret.txt?</h1>');
      expect(page.body).toContain('Allow reading this file for the session');
      expect(page.body).not.toContain('class="file"');
      expect((await person.decide(id, { hash: review.queue.get(id)!.hash, decision: 'file' })).status).toBe(
        200,
      );
      expect((await result).ok).toBe(true);
      expect(tools.session.grants.readFiles).toEqual(['secret.txt']);
    } finally {
      await review.close();
    }
  });
});
