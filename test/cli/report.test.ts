/**
 * What the CLI prints of a refusal may quote the file (NOT_FOUND's closest text): the file's bytes never
 * reach the terminal raw, typed command or `apply` alike (issue #27 shows the closest text to people).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { report } from '../../src/cli/report.js';
import { notFoundError } from '../../src/core/edit-errors.js';
import { failure } from '../../src/tools/result.js';

const HOSTILE = 'const a = 1; \x1b[2J\x1b]0;pwned\x07 \u202eevil\u202c';

function printed(typed: boolean): string {
  const closest = {
    startLine: 3,
    endLine: 3,
    similarity: 0.9,
    whitespaceOnly: false,
    excerpt: `     3\t${HOSTILE}`,
  };
  const result = failure(
    'edit_file',
    notFoundError('exact', closest, {
      noneClose: 'Nothing resembles it',
      reread: 'Read the file again with read_file',
    }),
  );
  const stderr = new PassThrough();
  const chunks: string[] = [];
  stderr.on('data', (chunk) => chunks.push(String(chunk)));
  report('edit_file', result, {
    json: false,
    command: typed ? 'edit' : 'apply',
    ...(typed ? { typed: { input: { old_string: 'x' } } } : {}),
    stderr,
    stdout: new PassThrough(),
  });
  return chunks.join('');
}

describe('a refusal quoting the file, as the CLI prints it', () => {
  it.each([
    ['a typed command', true],
    ['apply (the model message as is)', false],
  ])('%s: the closest text is shown, its control and invisible characters marked', (_name, typed) => {
    const out = printed(typed);
    expect(out).toContain('The closest text is at line 3');
    expect(out).toContain('const a = 1;');
    expect(out).not.toMatch(/[\x1b\x07\u202e\u202c]/);
  });

  it('a typed command gives its own hint, not the advice for the model', () => {
    const out = printed(true);
    expect(out).toContain('hint: copy --old exactly from the file');
    expect(out).not.toMatch(/read_file|old_string/);
  });
});
