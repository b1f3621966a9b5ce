/**
 * editgate's version, read once from its package.json: what `editgate --version` prints and what the MCP
 * server tells its clients. The path holds from the compiled file (dist/tools/) and from the one-file MCP
 * bundle (dist/cli/) alike, both two folders below the package.
 */
import { readFileSync } from 'node:fs';

let version: string | undefined;

export function packageVersion(): string {
  version ??= (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
  return version;
}
