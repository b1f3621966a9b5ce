import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { trustRecord } from '../src/tools/config-trust.js';

/**
 * Trusts a config file for a root (default: the folder it is in) as `editgate trust` would, in the given
 * state folder (a test's temp folder, never the real home): for tests of what a trusted config does (hooks,
 * allow rules, auditLog).
 */
export function trustConfig(configPath: string, stateDir: string, root = dirname(configPath)): void {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const { file, content } = trustRecord(
    { root: realpathSync(root), path: realpathSync(configPath) },
    readFileSync(configPath, 'utf8'),
    stateDir,
  );
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, content, { mode: 0o600 });
}
