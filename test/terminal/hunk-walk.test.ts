import { describe, expect, it } from 'vitest';
import type { ApprovalFile, ApprovalQuestion } from '../../src/gate/approval.js';
import { checkHunkChoices } from '../../src/gate/hunk-decision.js';
import { HunkWalk, walkUnavailable } from '../../src/terminal/hunk-walk.js';
import { fileChange } from '../web/review-fixture.js';

const BEFORE = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
/** Three hunks: lines 2, 15 and 28 changed. */
const AFTER = BEFORE.replace('line 2\n', 'LINE 2\n')
  .replace('line 15\n', 'LINE 15\n')
  .replace('line 28\n', 'LINE 28\n');

function fileOf(
  path: string,
  before = BEFORE,
  after = AFTER,
  extra: Partial<ApprovalFile> = {},
): ApprovalFile {
  return { ...fileChange(path, before, after), ...extra };
}

const request: ApprovalQuestion = { tool: 'edit_file', files: [fileOf('a.txt')] };

function walk(keys: string, reasons: string[] = [], on = request) {
  const each = new HunkWalk(on);
  const events = [...keys].map((key) => {
    const event = each.press(key);
    return event === 'reason' ? `${event}:${each.reason(reasons.shift() ?? '')}` : event;
  });
  return { walk: each, events };
}

describe('the per-hunk walk', () => {
  it('y, n with a reason, y: hunks 1 and 3 taken, 2 refused with the reason, as the gate reads it', () => {
    expect(request.files[0]!.diff.hunks).toHaveLength(3);
    const { walk: done, events } = walk('yny', ['not this one']);
    expect(events).toEqual(['next', 'reason:next', 'done']);
    expect(done.current()).toBeUndefined();
    const decision = done.decision();
    expect(decision).toEqual({
      allow: 'once',
      hunks: { 'a.txt': { accept: [0, 2], reject: [{ hunk: 1, reason: 'not this one' }] } },
    });
    expect(checkHunkChoices(request, decision.hunks)).toMatchObject({ files: [{ accepted: [0, 2] }] });
    expect(done.summary()).toBe('a.txt: write hunks 1, 3; not 2 (not this one)');
  });

  it('a takes the rest, d refuses the rest; an empty reason is none', () => {
    expect(walk('na', ['']).walk.decision().hunks).toEqual({
      'a.txt': { accept: [1, 2], reject: [{ hunk: 0 }] },
    });
    expect(walk('yd').walk.decision().hunks).toEqual({
      'a.txt': { accept: [0], reject: [{ hunk: 1 }, { hunk: 2 }] },
    });
  });

  it('says where it is, and walks every splittable file of a change set in order, skipping whole ones', () => {
    const set: ApprovalQuestion = {
      tool: 'apply_patch',
      files: [
        fileOf('a.txt'),
        fileOf('gone.txt', BEFORE, '', { kind: 'delete', wholeOnly: 'a deletion' }),
        fileOf('b.txt'),
      ],
    };
    const each = new HunkWalk(set);
    expect(each.current()).toEqual({ path: 'a.txt', hunk: 0, hunks: 3, step: 1, steps: 6 });
    for (const key of 'yyy') each.press(key);
    expect(each.current()).toEqual({ path: 'b.txt', hunk: 0, hunks: 3, step: 4, steps: 6 });
    each.press('d');
    expect(Object.keys(each.decision().hunks)).toEqual(['a.txt', 'b.txt']);
  });

  it('bad keys do nothing; q goes back, ? asks for help, and neither chooses', () => {
    const { walk: each, events } = walk('xYN \r?q');
    expect(events).toEqual(['ignored', 'ignored', 'ignored', 'ignored', 'ignored', 'help', 'back']);
    expect(each.current()?.step).toBe(1);
    // After the last hunk, choice keys do nothing more.
    const done = walk('yyy').walk;
    expect(done.press('n')).toBe('ignored');
  });

  it('is not offered where it cannot split, and says why', () => {
    expect(walkUnavailable(request)).toBeUndefined();
    const whole = {
      tool: 'edit_file',
      files: [fileOf('a.txt', BEFORE, AFTER, { wholeOnly: 'a.txt is too large' })],
    };
    expect(walkUnavailable(whole)).toBe('a.txt is too large');
    const one = { tool: 'edit_file', files: [fileOf('a.txt', 'a\n', 'b\n')] };
    expect(walkUnavailable(one)).toBe('this change has one hunk: answer y or n');
    const read: ApprovalQuestion = {
      tool: 'read_file',
      files: [{ ...fileOf('a.txt', '', ''), kind: 'read' }],
    };
    expect(walkUnavailable(read)).toBe('a read has no hunks');
  });
});
