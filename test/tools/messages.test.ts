import { describe, expect, it } from 'vitest';
import { humanDuration } from '../../src/tools/messages.js';
import { makeWorkspace, readAll } from './workspace-fixture.js';

describe('humanDuration', () => {
  it.each([
    [0, '0 seconds'],
    [1_000, '1 second'],
    [20_000, '20 seconds'],
    [44_600, '45 seconds'],
    [59_000, '59 seconds'],
    [60_000, '1 minute'],
    [90_000, '1 minute 30 seconds'],
    [599_998, '10 minutes'],
    [600_000, '10 minutes'],
    [3_600_000, '1 hour'],
    [5_400_000, '1 hour 30 minutes'],
    [7_200_000, '2 hours'],
  ])('%d ms is "%s"', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe('preview-mode message', () => {
  const propose = async (stagedTtlMs?: number) => {
    const ws = await makeWorkspace({ 'a.txt': 'one\n' });
    const tools = ws.tools({ mode: 'preview', ...(stagedTtlMs === undefined ? {} : { stagedTtlMs }) });
    await readAll(tools, 'a.txt');
    const result = await tools.execute('edit_file', {
      file_path: 'a.txt',
      old_string: 'one',
      new_string: 'two',
    });
    expect(result.ok).toBe(true);
    return result.message;
  };

  it('says how long a change_id stays valid in words, under a minute too', async () => {
    expect(await propose(45_000)).toContain('valid for 45 seconds, once');
    expect(await propose(60_000)).toContain('valid for 1 minute, once');
    expect(await propose()).toContain('valid for 10 minutes, once');
  });
});

describe('preview-mode diff as a person reads it (issue #13)', () => {
  it('carries no raw ESC, bidi override or invisible character; each is spelled out', async () => {
    const ws = await makeWorkspace();
    const tools = ws.tools({ mode: 'preview' });
    const result = await tools.execute('write_file', {
      file_path: 'n\u202etxt.sh',
      content: 'echo ok\x1b[1A\x1b[2K\nrm -rf ~ \u202e#\u200f\u{e0041}\n',
    });
    expect(result.ok).toBe(true);
    expect(result.message).not.toMatch(/[\x1b\u202e\u200f\u{e0041}]/u);
    expect(result.message).toContain('+echo ok␛[1A␛[2K');
    expect(result.message).toContain('+rm -rf ~ <U+202E>#<U+200F><U+E0041>');
  });
});
