import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { trustRecord } from '../src/tools/config-trust.js';

/**
 * Trusts a config file as `editgate trust` would, in the given state folder (a test's temp folder, never
 * the real home): for tests of what a trusted config does (hooks, allow rules, auditLog).
 */
export function trustConfig(configPath: string, stateDir: string): void {
  const { file, content } = trustRecord(realpathSync(configPath), readFileSync(configPath, 'utf8'), stateDir);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, content, { mode: 0o600 });
}
