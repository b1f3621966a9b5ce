import { describe, expect, it } from 'vitest';
import { createEditTools, startReviewServer } from '../../src/index.js';
import { makeWorkspace } from '../tools/workspace-fixture.js';
import { signIn } from './review-fixture.js';

describe('the review page from the library', () => {
  it('as the README shows it: an approver for createEditTools, answered through the page', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\n' });
    const review = await startReviewServer({ root: ws.root });
    try {
      const tools = createEditTools({ root: ws.root, approve: (request) => review.ask(request) });
      await tools.execute('read_file', { file_path: 'a.txt' });
      const result = tools.execute('write_file', { file_path: 'a.txt', content: 'two\n' });
      const queued = await new Promise<string>((resolve) => {
        const listed = review.queue.list()[0];
        if (listed) resolve(listed.id);
        else review.queue.subscribe((event) => resolve(event.item.id));
      });
      const person = await signIn(review);
      const answer = await person.decide(queued, { hash: review.queue.get(queued)!.hash, decision: 'once' });
      expect(answer.status).toBe(200);
      expect((await result).ok).toBe(true);
      expect(await ws.text('a.txt')).toBe('two\n');
    } finally {
      await review.close();
    }
  });
});
