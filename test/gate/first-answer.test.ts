import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, Decision } from '../../src/gate/approval.js';
import { type AnswerSource, firstAnswer } from '../../src/gate/first-answer.js';
import { oneFileRequest } from '../one-file-request.js';

const request: ApprovalRequest = oneFileRequest({
  tool: 'edit_file',
  path: 'a.txt',
  kind: 'modify',
  diff: { hunks: [], added: 1, removed: 1, identical: false },
  unifiedDiff: '',
  stats: { added: 1, removed: 1 },
});

/** A front end that answers when told to, and records how it was withdrawn. */
function frontEnd(where: string) {
  let answer: ((decision: Decision) => void) | undefined;
  let fail: ((error: Error) => void) | undefined;
  const withdrawn: unknown[] = [];
  const source: AnswerSource = {
    where,
    ask: (_, options = {}) =>
      new Promise<Decision>((resolve, reject) => {
        answer = resolve;
        fail = reject;
        options.signal?.addEventListener('abort', () => {
          withdrawn.push(options.signal!.reason);
          reject(options.signal!.reason);
        });
      }),
  };
  return {
    source,
    withdrawn,
    answer: (decision: Decision) => answer!(decision),
    fail: (error: Error) => fail!(error),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('firstAnswer', () => {
  it('the first answer wins; the other front end is withdrawn with who answered and how', async () => {
    const terminal = frontEnd('in the terminal');
    const browser = frontEnd('in the browser');
    const decision = firstAnswer([terminal.source, browser.source])(request);
    await turn();
    browser.answer({ deny: 'no' });
    expect(await decision).toEqual({ deny: 'no' });
    expect(terminal.withdrawn).toEqual([{ by: 'in the browser', decision: { deny: 'no' } }]);
    expect(browser.withdrawn).toEqual([]);
  });

  it('a front end that fails is ignored while another still asks; when all fail, the first failure is the answer', async () => {
    const terminal = frontEnd('in the terminal');
    const browser = frontEnd('in the browser');
    const decision = firstAnswer([terminal.source, browser.source])(request);
    await turn();
    browser.fail(new Error('page closed'));
    await turn();
    terminal.answer('once');
    expect(await decision).toBe('once');

    const a = frontEnd('a');
    const b = frontEnd('b');
    const failing = firstAnswer([a.source, b.source])(request);
    await turn();
    a.fail(new Error('first'));
    b.fail(new Error('second'));
    await expect(failing).rejects.toThrow('first');
  });

  it('one front end alone is asked as it is', async () => {
    const only = frontEnd('in the browser');
    const decision = firstAnswer([only.source])(request);
    await turn();
    only.answer('all');
    expect(await decision).toBe('all');
  });
});
