import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dryRunResult, failureForPeople, hintForPeople, successForPeople } from '../../src/cli/for-people.js';
import { notFoundError } from '../../src/core/edit-errors.js';
import { EditgateError, type ErrorCode } from '../../src/core/errors.js';
import { failure, type ToolFailure } from '../../src/tools/result.js';

const failed = (code: ErrorCode, details: Record<string, unknown> = {}): ToolFailure => ({
  ok: false,
  code,
  message: `edit_file failed (${code}): ...`,
  details,
  happened: '...',
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
  const said = (code: ErrorCode, happened: string, advice?: string, details: Record<string, unknown> = {}) =>
    failureForPeople('edit', failure('edit_file', new EditgateError(code, { happened, advice }, details)));

  it('is the code and what happened; the advice for the model is never shown', () => {
    expect(
      said(
        'STALE',
        'app.ts was changed by someone else since this change was computed; nothing was written.',
        'Read it again with read_file, then redo the edit against its current content.',
      ),
    ).toBe('STALE: app.ts was changed by someone else since this change was computed; nothing was written.');
  });

  it('keeps the closest text of a NOT_FOUND, as the README promises (#27)', () => {
    const closest = {
      startLine: 7,
      endLine: 7,
      similarity: 0.92,
      whitespaceOnly: false,
      excerpt: '     7\tconst answer = 42;',
    };
    const result = failure(
      'edit_file',
      notFoundError('exact', closest, { noneClose: 'x', reread: 'Read the file again with read_file' }),
    );
    const shown = failureForPeople('edit', result);
    expect(shown).toContain('NOT_FOUND: The text to replace was not found in the file (exact matching).');
    expect(shown).toContain('The closest text is at line 7 (similarity 0.92)');
    expect(shown).toContain('const answer = 42;');
    expect(shown).not.toMatch(/read_file|old_string/);
    // The model still reads all of it.
    expect(result.message).toMatch(
      /closest text is at line 7.*Read the file again with read_file and copy old_string/s,
    );
  });

  it('never rewrites: whatever the words, the person reads exactly what happened (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
        (happened, advice) => {
          expect(said('IO', happened, advice)).toBe(`IO: ${happened}`);
        },
      ),
    );
  });

  it('an error given as one message (no advice apart) is shown whole', () => {
    expect(
      failureForPeople('edit', failure('edit_file', new EditgateError('IO', 'Disk on fire. Go away.'))),
    ).toBe('IO: Disk on fire. Go away.');
  });

  it('a refusal the person gave is said to them, reading or changing as the command does', () => {
    const denied = (command: string, details: Record<string, unknown>) =>
      failureForPeople(
        command,
        failure('read_file', new EditgateError('DENIED_USER', 'The user denied it.', details)),
      );
    expect(denied('edit', { path: 'a.ts', reason: 'keep b' })).toBe(
      'DENIED_USER: you said no to the change to a.ts: keep b',
    );
    expect(denied('read', { path: 'a.ts' })).toBe(
      'DENIED_USER: you said no to reading a.ts; nothing was changed.',
    );
  });

  it('a policy refusal names the rule as a person reads it', () => {
    const refusal = new EditgateError(
      'DENIED_POLICY',
      'Policy does not allow edit_file on a.ts. Do not retry.',
      {
        path: 'a.ts',
        rule: { path: 'a.ts', action: 'deny' },
      },
    );
    expect(failureForPeople('edit', failure('edit_file', refusal))).toBe(
      'DENIED_POLICY: Policy does not allow the change to a.ts (rule: every tool on a.ts → deny); nothing was changed.',
    );
  });
});
