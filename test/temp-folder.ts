/**
 * Temp folders for tests that are removed when the test file is done: every folder tempFolder() makes is
 * deleted (with what is in it) after the file's last test, so a run leaves nothing in the system's temp
 * folder. The cleanup is registered for every test file by test/setup/cleanup.ts (a setup file runs
 * per test file, also where files share a worker and its modules, vitest.config.ts: a hook registered
 * here, at this module's top, would run for the first file that imported it and never again).
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';

const made: string[] = [];

/** A new empty folder in the system's temp folder (its real path), named `prefix` and random letters. */
export function tempFolder(prefix: string): string {
  const folder = newFolder(prefix);
  made.push(folder);
  return folder;
}

/**
 * A temp folder that lives as long as the worker process, for a helper module's constant that must not
 * change while the worker runs (a state folder: editgate keeps its key in memory per folder). Where files
 * share a worker (vitest.config.ts) the module is evaluated once for all of them, so the first file's
 * cleanup must not take it: it is made in the run's own temp folder (test/setup/run-temp-folder.ts), which
 * goes when the run ends.
 */
export function workerTempFolder(prefix: string): string {
  return realpathSync(mkdtempSync(join(inject('runTempFolder'), prefix)));
}

/** Removes the folders made for the test file that ends (test/setup/cleanup.ts, after each file). */
export function removeTempFolders(): void {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
}

function newFolder(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}
