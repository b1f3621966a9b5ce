import { describe, expect, it } from 'vitest';
import { EditgateError } from '../../src/core/errors.js';
import { errnoCode, mapFsError } from '../../src/workspace/fs-errors.js';

const osError = (code: string) =>
  Object.assign(new Error(`${code}: something, open '/home/someone/secret/path'`), { code, syscall: 'open' });

describe('mapFsError', () => {
  const cases: [string, string][] = [
    ['EACCES', 'PERMISSION'],
    ['EPERM', 'PERMISSION'],
    ['EROFS', 'READ_ONLY'],
    ['ENOSPC', 'DISK_FULL'],
    ['EDQUOT', 'DISK_FULL'],
    ['EISDIR', 'IS_DIRECTORY'],
    ['ENAMETOOLONG', 'NAME_TOO_LONG'],
    ['ENOENT', 'FILE_NOT_FOUND'],
    ['EIO', 'IO'],
    ['EXDEV', 'IO'],
  ];
  for (const [errno, code] of cases) {
    it(`${errno} → ${code}, naming the workspace path and never the OS message's path`, () => {
      const error = mapFsError(osError(errno), { display: 'src/a.ts', action: 'write' });
      expect(error.code).toBe(code);
      expect(error.message).toContain('src/a.ts');
      expect(error.message).not.toContain('/home/someone');
      expect(error.details).toMatchObject({ errno, syscall: 'open' });
    });
  }

  it('says "the file" when no display path is given', () => {
    expect(mapFsError(osError('EACCES')).message).toContain('the file');
    expect(mapFsError(osError('EROFS')).message).toMatch(/^The file/);
  });

  it('passes EditgateErrors through and wraps anything else as IO', () => {
    const own = new EditgateError('STALE', 'changed');
    expect(mapFsError(own)).toBe(own);
    expect(mapFsError(new TypeError('nope')).code).toBe('IO');
    expect(errnoCode(new TypeError('nope'))).toBeUndefined();
  });
});
