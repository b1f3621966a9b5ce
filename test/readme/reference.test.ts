import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO } from '../built-cli.js';

// The reference pages under docs/reference/ are generated from their sources (the tool definitions, each
// command's --help, src/core/error-codes.ts): a change to a source that leaves its page as it was fails
// here, with the command that brings it up to date.

const run = promisify(execFile);

beforeAll(ensureBuilt, 120_000);

describe('the generated reference pages', () => {
  it('are what their sources say today', async () => {
    const checked = await run(process.execPath, [join(REPO, 'scripts', 'docs-reference.mjs'), '--check'], {
      cwd: REPO,
    }).then(
      () => '',
      (error: { stderr?: string }) => error.stderr ?? String(error),
    );
    expect(checked).toBe('');
  }, 60_000);
});
