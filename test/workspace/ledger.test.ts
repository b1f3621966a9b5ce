import { describe, expect, it } from 'vitest';
import { isEditgateError } from '../../src/core/errors.js';
import type { Fingerprint } from '../../src/workspace/fingerprint.js';
import { Ledger } from '../../src/workspace/ledger.js';

const path = '/work/app/src/main.ts';
const v1: Fingerprint = { size: 10, mtimeMs: 1000, hash: 'aaa' };
const v1touched: Fingerprint = { size: 10, mtimeMs: 2000, hash: 'aaa' };
const v2: Fingerprint = { size: 12, mtimeMs: 3000, hash: 'bbb' };
/** Part of a 10-line file, and all of it. */
const PART = { first: 1, last: 5, lineCount: 10 };
const ALL = { first: 1, last: 10, lineCount: 10 };

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
  } catch (error) {
    if (isEditgateError(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe('Ledger', () => {
  it('NOT_READ for a file never read, naming it and read_file', () => {
    const ledger = new Ledger();
    try {
      ledger.check(path, v1, { display: 'src/main.ts' });
      expect.unreachable();
    } catch (error) {
      expect(isEditgateError(error, 'NOT_READ')).toBe(true);
      expect((error as Error).message).toMatch(/src\/main\.ts.*read_file/);
    }
  });

  it('a file that does not exist and was never read needs no read', () => {
    expect(codeOf(() => new Ledger().check(path, null))).toBeUndefined();
  });

  it('PARTIAL_READ when only part was read; a full read then allows the edit', () => {
    const ledger = new Ledger();
    ledger.recordRead(path, v1, PART);
    expect(codeOf(() => ledger.check(path, v1))).toBe('PARTIAL_READ');
    ledger.recordRead(path, v1, ALL);
    expect(codeOf(() => ledger.check(path, v1))).toBeUndefined();
  });

  it('a partial read of unchanged content keeps an earlier full read; of changed content it does not', () => {
    const ledger = new Ledger();
    ledger.recordRead(path, v1, ALL);
    ledger.recordRead(path, v1touched, PART);
    expect(codeOf(() => ledger.check(path, v1touched))).toBeUndefined();
    ledger.recordRead(path, v2, PART);
    expect(codeOf(() => ledger.check(path, v2))).toBe('PARTIAL_READ');
  });

  it('STALE when the content changed since the read, with what to do', () => {
    const ledger = new Ledger({ display: (p) => p.replace('/work/app/', '') });
    ledger.recordRead(path, v1, ALL);
    try {
      ledger.check(path, v2);
      expect.unreachable();
    } catch (error) {
      expect(isEditgateError(error, 'STALE')).toBe(true);
      expect((error as Error).message).toMatch(/src\/main\.ts.*read it again/i);
    }
  });

  it('STALE when the file was deleted since the read', () => {
    const ledger = new Ledger();
    ledger.recordRead(path, v1, ALL);
    expect(codeOf(() => ledger.check(path, null))).toBe('STALE');
  });

  it('an mtime-only change is not stale: the entry refreshes silently', () => {
    const ledger = new Ledger();
    ledger.recordRead(path, v1, ALL);
    expect(codeOf(() => ledger.check(path, v1touched))).toBeUndefined();
    expect(ledger.get(path)?.fingerprint).toEqual(v1touched);
  });

  it('a write counts as a full read, so a second edit in a row works', () => {
    const ledger = new Ledger();
    ledger.recordRead(path, v1, ALL);
    ledger.check(path, v1);
    ledger.recordWrite(path, v2);
    expect(codeOf(() => ledger.check(path, v2))).toBeUndefined();
    // A file created by editgate was never read, yet may be edited next.
    const created = '/work/app/new.ts';
    ledger.recordWrite(created, v1);
    expect(codeOf(() => ledger.check(created, v1))).toBeUndefined();
  });

  it('forget drops what was seen', () => {
    const ledger = new Ledger();
    ledger.recordRead(path, v1, ALL);
    ledger.forget(path);
    expect(codeOf(() => ledger.check(path, v1))).toBe('NOT_READ');
  });

  it('pages that cover every line of one version count as a full read, in any order', () => {
    const ledger = new Ledger();
    expect(ledger.recordRead(path, v1, { first: 6, last: 10, lineCount: 10 })).toBe(false);
    expect(codeOf(() => ledger.check(path, v1))).toBe('PARTIAL_READ');
    expect(ledger.recordRead(path, v1, { first: 1, last: 5, lineCount: 10 })).toBe(true);
    expect(codeOf(() => ledger.check(path, v1))).toBeUndefined();
    // Pages of another version start over.
    expect(ledger.recordRead(path, v2, { first: 1, last: 5, lineCount: 10 })).toBe(false);
    expect(codeOf(() => ledger.check(path, v2))).toBe('PARTIAL_READ');
  });

  it('a huge file (a stat fingerprint) needs a read of any part of this very version', () => {
    const ledger = new Ledger();
    const huge: Fingerprint = {
      size: 1e9,
      mtimeMs: 1,
      hash: 'stat1:1:2:1000000000:1:1',
      stat: 'stat1:1:2:1000000000:1:1',
    };
    const touched: Fingerprint = {
      ...huge,
      hash: 'stat1:1:2:1000000000:1:2',
      stat: 'stat1:1:2:1000000000:1:2',
    };
    expect(codeOf(() => ledger.check(path, huge, { display: 'big.sql' }))).toBe('NOT_READ');
    ledger.recordRead(path, huge, { first: 500, last: 520, lineCount: 9_000_000 });
    expect(codeOf(() => ledger.check(path, huge))).toBeUndefined();
    expect(codeOf(() => ledger.check(path, touched))).toBe('STALE');
  });
});
