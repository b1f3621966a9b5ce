import { describe, expect, it } from 'vitest';
import { dryRunResult, failureForPeople, hintForPeople, successForPeople } from '../../src/cli/for-people.js';
import type { ErrorCode } from '../../src/core/errors.js';
import type { ToolFailure } from '../../src/tools/result.js';

const failed = (code: ErrorCode, details: Record<string, unknown> = {}): ToolFailure => ({
  ok: false,
  code,
  message: `edit_file failed (${code}): ...`,
  details,
});

describe('successForPeople', () => {
  it('is the summary line alone when the match was exact and no hook spoke', () => {
    const result = {
      ok: true as const,
      message: 'Edited a.ts: 1 replacement, +1 -1 lines.\nThe changed region now reads:\n     1\tx',
      details: { summary: 'Edited a.ts: 1 replacement, +1 -1 lines.', tiers: ['exact'] },
    };
    expect(successForPeople('edit', result)).toBe('Edited a.ts: 1 replacement, +1 -1 lines.');
  });

  it('says which tolerance the match needed, in the option the person typed, and keeps hook output', () => {
    const result = {
      ok: true as const,
      message: '...',
      details: {
        summary: 'Edited a.ts: 1 replacement, +1 -1 lines.',
        tiers: ['trailing-whitespace', 'trailing-whitespace'],
        hookMessage: 'a.ts:1:1 lint ok',
      },
    };
    expect(successForPeople('edit', result).split('\n')).toEqual([
      'Edited a.ts: 1 replacement, +1 -1 lines.',
      'Note: --old did not match exactly; it matched after tolerating trailing-whitespace.',
      '',
      'After-change check:',
      'a.ts:1:1 lint ok',
    ]);
  });

  it('falls back to the message for a result without a summary (a read)', () => {
    expect(successForPeople('edit', { ok: true, message: 'plain', details: {} })).toBe('plain');
  });
});

describe('hintForPeople', () => {
  it('names options, never tool parameters', () => {
    const cases: Array<[string, ToolFailure, Record<string, unknown>]> = [
      ['edit', failed('AMBIGUOUS', { count: 3 }), {}],
      ['edit', failed('NOT_FOUND'), {}],
      ['edit', failed('NO_CHANGE'), {}],
      ['edit', failed('FILE_NOT_FOUND'), {}],
      ['edit', failed('INVALID_INPUT'), { old_string: '' }],
      ['lines', failed('INVALID_RANGE'), {}],
      ['write', failed('TOO_LARGE'), {}],
      ['edit', failed('STALE'), {}],
      ['undo', failed('STALE'), {}],
      ['edit', failed('OUTSIDE_ROOT'), {}],
      ['edit', failed('DENIED_POLICY'), {}],
      ['lines', failed('ENCODING'), {}],
    ];
    for (const [command, result, input] of cases) {
      const hint = hintForPeople(command, result, input);
      expect({ code: result.code, hint }).toMatchObject({ code: result.code, hint: expect.any(String) });
      expect(hint).not.toMatch(/old_string|new_string|replace_all|write_file|edit_file|read_file/);
    }
  });

  it('gives the count of an ambiguous match', () => {
    expect(hintForPeople('edit', failed('AMBIGUOUS', { count: 7 }), {})).toContain('replace all 7');
  });

  it('says nothing where the message already fits a person (the person said no, or an input error)', () => {
    expect(hintForPeople('edit', failed('DENIED_USER'), {})).toBeUndefined();
    expect(hintForPeople('edit', failed('INVALID_INPUT'), { old_string: 'x' })).toBeUndefined();
    expect(hintForPeople('undo', failed('NOTHING_TO_UNDO'), {})).toBeUndefined();
  });

  it('tells undo that only its own last change can be taken back', () => {
    expect(hintForPeople('undo', failed('STALE'), {})).toContain("editgate's own last change");
  });

  it('names the config file that holds the refusing rule, as given with --config', () => {
    expect(hintForPeople('edit', failed('DENIED_POLICY'), {}, 'ci/p.json')).toContain('a rule in ci/p.json');
    expect(hintForPeople('edit', failed('DENIED_POLICY'), {})).toContain('the config file');
  });

  it('points a file in another encoding to --encoding', () => {
    expect(hintForPeople('edit', failed('ENCODING'), {})).toContain('--encoding latin1');
  });
});

describe('dryRunResult', () => {
  const staged = (details: Record<string, unknown>) => ({
    ok: true as const,
    message: 'Proposed (NOT yet written): ... call apply_change with change_id "x" ...',
    details: { changeId: 'x', expiresAt: '2030-01-01T00:00:00.000Z', written: false, ...details },
  });

  it('says what would happen and that nothing was written, without the staged id', () => {
    const result = dryRunResult(
      staged({ tool: 'edit_file', path: 'a.ts', kind: 'modify', added: 1, removed: 1, replacements: 2 }),
    );
    expect(result.message).toBe(
      'Dry run: a.ts would be changed (2 replacements, +1 -1 lines); nothing was written.',
    );
    expect(result.details).toMatchObject({ dryRun: true, written: false, summary: result.message });
    expect(result.details).not.toHaveProperty('changeId');
    expect(result.details).not.toHaveProperty('expiresAt');
  });

  it('tells a creation, a deletion and an undo apart', () => {
    const says = (details: Record<string, unknown>) =>
      dryRunResult(staged({ path: 'n.txt', added: 3, removed: 0, ...details })).message;
    expect(says({ tool: 'write_file', kind: 'create' })).toContain('n.txt would be created (+3 -0 lines)');
    expect(says({ tool: 'undo_edit', kind: 'delete' })).toContain('n.txt would be deleted');
    expect(says({ tool: 'undo_edit', kind: 'modify' })).toContain('the last change to n.txt would be undone');
  });

  it('keeps the no-change message: nothing would be written anyway', () => {
    const noop = { ok: true as const, message: 'No change: a.ts already has it.', details: { kind: 'noop' } };
    expect(dryRunResult(noop)).toMatchObject({ message: noop.message, details: { dryRun: true } });
  });
});

describe('failureForPeople', () => {
  const said = (code: ErrorCode, message: string, details: Record<string, unknown> = {}) =>
    failureForPeople({ ok: false, code, message: `edit_file failed (${code}): ${message}`, details });

  it('keeps the code and what happened, and drops the advice only a model can follow', () => {
    expect(
      said(
        'STALE',
        'app.ts was changed by someone else since this change was computed; nothing was written. Read it again with read_file, then redo the edit against its current content.',
      ),
    ).toBe('STALE: app.ts was changed by someone else since this change was computed; nothing was written.');
    expect(
      said(
        'DENIED_POLICY',
        'Policy does not allow edit_file on a.ts (rule: a.ts → deny). Do not retry this change; tell the user if it is needed.',
      ),
    ).toBe('DENIED_POLICY: Policy does not allow edit_file on a.ts (rule: a.ts → deny).');
  });

  it('names what the person typed instead of the tool parameters', () => {
    expect(
      said(
        'AMBIGUOUS',
        'old_string matches 2 places (lines 1 and 2), but it must match exactly one. Add more surrounding lines to old_string, or set replace_all to true to replace all 2.',
      ),
    ).toBe('AMBIGUOUS: the text to replace matches 2 places (lines 1 and 2), but it must match exactly one.');
  });

  it('turns advice about "the user" into advice to the person', () => {
    expect(
      said(
        'PERMISSION',
        'Permission denied: the operating system does not allow editgate to write a.ts. Nothing was changed. Do not retry; ask the user to fix the permissions or choose another file.',
      ),
    ).toBe(
      'PERMISSION: Permission denied: the operating system does not allow editgate to write a.ts. Nothing was changed. Fix the permissions or choose another file.',
    );
    expect(
      said(
        'DISK_FULL',
        'The disk is full (or the quota is used up), so a.ts could not be written. Nothing was changed. Ask the user to free some space, then try again.',
      ),
    ).toContain('Nothing was changed. Free some space, then try again.');
    expect(
      said(
        'IO',
        'Could not take the file lock (EAGAIN); nothing was written. Try again; if it keeps failing, tell the user.',
      ),
    ).toBe('IO: Could not take the file lock (EAGAIN); nothing was written. Try again.');
  });

  it('a refusal the person gave is said to them', () => {
    expect(said('DENIED_USER', 'The user denied this edit: keep b', { path: 'a.ts', reason: 'keep b' })).toBe(
      'DENIED_USER: you said no to the change to a.ts: keep b',
    );
    expect(said('DENIED_USER', 'The user denied reading a.ts.', { path: 'a.ts' })).toBe(
      'DENIED_USER: you said no to reading a.ts; nothing was changed.',
    );
  });
});
