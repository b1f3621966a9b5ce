import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NotPlainFile, readPlainFile } from '../../src/workspace/io.js';
import { tempFolder } from '../temp-folder.js';

// readPlainFile: how editgate reads the small files it keeps or reads as data (a config, a trust record, a
// change-set journal, a hook's kept approval), synchronously.
describe('readPlainFile', () => {
  const folder = tempFolder('editgate-plain-file-');

  it('reads a regular file whole, as UTF-8', () => {
    const file = join(folder, 'a.json');
    writeFileSync(file, '{"é": 1}\n');
    expect(readPlainFile(file)).toBe('{"é": 1}\n');
    expect(readPlainFile(file, 10)).toBe('{"é": 1}\n');
  });

  it('refuses a file over the size the reader takes', () => {
    const file = join(folder, 'big.json');
    writeFileSync(file, 'x'.repeat(11));
    expect(() => readPlainFile(file, 10)).toThrow(NotPlainFile);
    try {
      readPlainFile(file, 10);
    } catch (error) {
      expect((error as NotPlainFile).why).toBe('too large');
    }
  });

  it('follows no link, and says what is missing as the open does', () => {
    const target = join(folder, 'target.json');
    writeFileSync(target, 'secret');
    const link = join(folder, 'link.json');
    symlinkSync(target, link);
    expect(() => readPlainFile(link)).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    expect(() => readPlainFile(join(folder, 'none.json'))).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
  });

  it('never waits on a FIFO, and takes no folder for a file', () => {
    const fifo = join(folder, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    // Nothing writes to it: a blocking open or read would hang the test.
    expect(() => readPlainFile(fifo)).toThrow(expect.objectContaining({ why: 'not a file' }));
    const sub = join(folder, 'sub.json');
    mkdirSync(sub);
    expect(() => readPlainFile(sub)).toThrow(expect.objectContaining({ why: 'not a file' }));
  });
});
