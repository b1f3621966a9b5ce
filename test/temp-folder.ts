/**
 * Temp folders for tests that are removed when the test file is done: every folder tempFolder() makes is
 * deleted (with what is in it) after the file's last test, so a run leaves nothing in the system's temp
 * folder. Importing this registers that cleanup for the importing test file.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

afterAll(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A new empty folder in the system's temp folder (its real path), named `prefix` and random letters. */
export function tempFolder(prefix: string): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(folder);
  return folder;
}
