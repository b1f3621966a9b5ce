import { describe, expect, it } from 'vitest';
import { isEditgateError } from '../../src/core/errors.js';
import {
  FASTER_THAN_A_PERSON_MS,
  noApproverError,
  nobodyToAsk,
  refuseUnreadAnswer,
} from '../../src/gate/no-approver.js';
import { oneFileRequest } from '../one-file-request.js';

const NO_DIFF = { diff: { hunks: [], added: 0, removed: 0, identical: false }, unifiedDiff: '' };
const CHANGE = oneFileRequest({
  tool: 'edit_file',
  path: 'src/a.ts',
  kind: 'modify',
  ...NO_DIFF,
  stats: { added: 0, removed: 0 },
});

function refusal(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (isEditgateError(error)) return error;
    throw error;
  }
  return undefined;
}

describe('no one to ask', () => {
  it('a decline or cancel under the threshold is no one asked; at it, or an accept, is an answer', () => {
    for (const action of ['decline', 'cancel'] as const) {
      expect(refusal(() => refuseUnreadAnswer(CHANGE, action, 0))?.code).toBe('DENIED_NO_APPROVER');
      expect(refusal(() => refuseUnreadAnswer(CHANGE, action, FASTER_THAN_A_PERSON_MS - 0.1))?.code).toBe(
        'DENIED_NO_APPROVER',
      );
      expect(refusal(() => refuseUnreadAnswer(CHANGE, action, FASTER_THAN_A_PERSON_MS))).toBeUndefined();
    }
    // A quick yes is a yes: the rule never turns an answer into a refusal in the other direction.
    expect(refusal(() => refuseUnreadAnswer(CHANGE, 'accept', 0))).toBeUndefined();
  });

  it('says no one said no, why, and what would let it through; reads and calls without a path too', () => {
    const change = noApproverError(CHANGE, 'the client declined at once');
    expect(change.message).toContain('edit_file on src/a.ts needs approval, and no one could be asked');
    expect(change.message).toContain('(the client declined at once)');
    expect(change.message).toContain('nothing was changed');
    expect(change.message).toContain('do not tell the user they denied it');
    for (const advice of ['editgate trust', '--approve preview', '--approve web']) {
      expect(change.message).toContain(advice);
    }
    expect(change.details).toMatchObject({
      tool: 'edit_file',
      path: 'src/a.ts',
      reason: 'the client declined at once',
    });
    expect(
      noApproverError(oneFileRequest({ ...CHANGE.files[0]!, tool: 'edit_file', kind: 'read' }), 'x').message,
    ).toContain('Reading src/a.ts');
    const call = noApproverError({ tool: 'move_file' }, 'no terminal', 'Run it from a terminal.');
    expect(call.message).toContain('move_file needs approval');
    expect(call.message).toContain('Run it from a terminal.');
    expect(call.details).not.toHaveProperty('path');
  });

  it('an approver known not to reach a person refuses every question as DENIED_NO_APPROVER', async () => {
    const approver = nobodyToAsk((request) => `no one for ${request.files[0]!.path}`);
    const error = refusal(() => approver(CHANGE, {}));
    expect(error?.code).toBe('DENIED_NO_APPROVER');
    expect(error?.message).toContain('(no one for src/a.ts)');
  });
});
