// Global setup (vitest.config.ts), in vitest's own process: one temp folder for the whole run, handed to
// every worker (inject('runTempFolder')) and removed when the run ends, with what workers left in it.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    runTempFolder: string;
  }
}

export function setup(project: TestProject): () => void {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), 'editgate-test-run-')));
  project.provide('runTempFolder', folder);
  return () => rmSync(folder, { recursive: true, force: true });
}
