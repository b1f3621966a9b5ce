/**
 * The tools on files above the streaming threshold (lowered to 1 MiB here, files of a few MB, small chunks
 * so matches and line endings cross chunk borders): same contracts as on small files, bounded memory.
 */
import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../src/core/progress.js';
import { makeWorkspace } from './workspace-fixture.js';

const MiB = 1 << 20;
const STREAM = { streamThreshold: MiB, streamChunkSize: 4093 };

/** `count` numbered lines ("line 000001 ...") joined by `eol`, about 40 bytes each. */
function lines(count: number, eol = '\n', final = true): string {
  const out: string[] = [];
  for (let i = 1; i <= count; i++) out.push(`line ${String(i).padStart(6, '0')} the quick brown fox`);
  return out.join(eol) + (final ? eol : '');
}

async function noTemps(folder: string): Promise<void> {
  const names = await readdir(folder);
  expect(names.filter((name) => name.includes('.editgate-'))).toEqual([]);
}

describe('read_file on a huge file', () => {
  it('reads lines far into the file, and a second read does not scan it again', async () => {
    const events: ProgressEvent[] = [];
    const ws = await makeWorkspace({ 'big.log': lines(100_000) });
    const tools = ws.tools({ ...STREAM, onProgress: (event) => events.push(event) });
    const first = await tools.execute('read_file', { file_path: 'big.log', offset: 99_990, limit: 5 });
    expect(first.ok).toBe(true);
    expect(first.message.split('\n').slice(0, 5)).toEqual(
      [99_990, 99_991, 99_992, 99_993, 99_994].map(
        (n) => `${String(n).padStart(6)}\tline ${String(n).padStart(6, '0')} the quick brown fox`,
      ),
    );
    expect(first.message).toContain('Showing lines 99990-99994 of 100000');
    expect(first.message).toContain('edited by streaming');
    expect(first.details).toMatchObject({ streamed: true, lines: 100_000, complete: false });
    expect(events.some((event) => event.phase === 'index')).toBe(true);

    events.length = 0;
    const again = await tools.execute('read_file', { file_path: 'big.log', offset: 50_000, limit: 2 });
    expect(again.message).toContain('50000\tline 050000');
    expect(events.filter((event) => event.phase === 'index')).toEqual([]);
  });

  it('counts lone CR, CRLF and LF as line ends and says when there is no final newline', async () => {
    const text = `${lines(30_000, '\r\n')}middle\rlone cr\nlf${lines(1_000, '\r', false)}`;
    const ws = await makeWorkspace({ 'mixed.txt': text });
    const tools = ws.tools(STREAM);
    const read = await tools.execute('read_file', { file_path: 'mixed.txt', offset: 30_001, limit: 3 });
    expect(read.message.split('\n').slice(0, 3)).toEqual([
      ' 30001\tmiddle',
      ' 30002\tlone cr',
      ' 30003\tlfline 000001 the quick brown fox',
    ]);
    const end = await tools.execute('read_file', { file_path: 'mixed.txt', offset: 31_002 });
    expect(end.message).toContain('31002\tline 001000 the quick brown fox');
    expect(end.message).toContain('does not end with a newline');
  });

  it('refuses UTF-16, other encodings, invalid UTF-8 and binary content, saying what to do', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(lines(30_000), 'utf16le')]);
    const invalid = Buffer.concat([Buffer.from(lines(40_000)), Buffer.from([0xc3, 0x28, 0x0a])]);
    const binary = Buffer.concat([Buffer.from(lines(40_000)), Buffer.from([0x00])]);
    const ws = await makeWorkspace({
      'u16.txt': utf16,
      'bad.txt': invalid,
      'bin.dat': binary,
      'ok.txt': lines(40_000),
    });
    const tools = ws.tools(STREAM);
    const u16 = await tools.execute('read_file', { file_path: 'u16.txt' });
    expect(u16).toMatchObject({ ok: false, code: 'TOO_LARGE' });
    expect(u16.message).toContain('iconv -f UTF-16LE -t UTF-8');
    const latin = await tools.execute('read_file', { file_path: 'ok.txt', encoding: 'latin1' });
    expect(latin).toMatchObject({ ok: false, code: 'TOO_LARGE' });
    const bad = await tools.execute('read_file', { file_path: 'bad.txt' });
    expect(bad).toMatchObject({ ok: false, code: 'ENCODING' });
    expect(bad.details).toMatchObject({ line: 40_001 });
    const bin = await tools.execute('read_file', { file_path: 'bin.dat' });
    expect(bin).toMatchObject({ ok: false, code: 'BINARY' });
  });
});

describe('edit_file on a huge file', () => {
  it('replaces a unique string near the end, shows it at its real line, and undo puts it back', async () => {
    const original = lines(100_000);
    const ws = await makeWorkspace({ 'big.log': original });
    const tools = ws.tools(STREAM);
    await tools.execute('read_file', { file_path: 'big.log', offset: 99_998, limit: 1 });
    const edit = await tools.execute('edit_file', {
      file_path: 'big.log',
      old_string: 'line 099998 the quick',
      new_string: 'line 099998 THE\nQUICK',
    });
    expect(edit.ok).toBe(true);
    expect(edit.message).toContain('Edited big.log: 1 replacement, +2 -1 lines.');
    expect(edit.message).toContain(' 99998\tline 099998 THE');
    expect(edit.message).toContain(' 99999\tQUICK brown fox');
    expect(edit.details.unifiedDiff).toContain('@@ -99995,6 +99995,7 @@');
    const expected = original.replace('line 099998 the quick', 'line 099998 THE\nQUICK');
    expect(await ws.text('big.log')).toBe(expected);
    await noTemps(ws.root);

    const undo = await tools.execute('undo_edit', { file_path: 'big.log' });
    expect(undo.ok).toBe(true);
    expect(await ws.text('big.log')).toBe(original);
  });

  it('finds text across chunk borders and gives its CRLF line endings to new lines', async () => {
    const original = lines(40_000, '\r\n');
    const ws = await makeWorkspace({ 'crlf.txt': original });
    const tools = ws.tools({ streamThreshold: MiB, streamChunkSize: 257 });
    await tools.execute('read_file', { file_path: 'crlf.txt', offset: 20_000, limit: 3 });
    const edit = await tools.execute('edit_file', {
      file_path: 'crlf.txt',
      old_string: 'fox\nline 020001 the',
      new_string: 'fox\ninserted\nline 020001 a',
    });
    expect(edit.ok).toBe(true);
    expect(await ws.text('crlf.txt')).toBe(
      original.replace('fox\r\nline 020001 the', 'fox\r\ninserted\r\nline 020001 a'),
    );
  });

  it('reports every place when old_string is ambiguous, however far apart', async () => {
    const original = `unique start\n${lines(60_000)}unique start\n`;
    const ws = await makeWorkspace({ 'big.log': original });
    const tools = ws.tools(STREAM);
    await tools.execute('read_file', { file_path: 'big.log', limit: 1 });
    const result = await tools.execute('edit_file', {
      file_path: 'big.log',
      old_string: 'unique start',
      new_string: 'first',
    });
    expect(result).toMatchObject({ ok: false, code: 'AMBIGUOUS', details: { count: 2, lines: [1, 60_002] } });
    expect(result.message).toContain('lines 1 and 60002');
    expect(await ws.text('big.log')).toBe(original);
  });

  it('replace_all renames everywhere; tolerant matching still works line by line', async () => {
    const original = lines(50_000);
    const ws = await makeWorkspace({ 'big.log': original });
    const tools = ws.tools(STREAM);
    await tools.execute('read_file', { file_path: 'big.log', limit: 1 });
    const all = await tools.execute('edit_file', {
      file_path: 'big.log',
      old_string: 'quick',
      new_string: 'slow',
      replace_all: true,
    });
    expect(all).toMatchObject({ ok: true, details: { replacements: 50_000 } });
    expect(all.details.unifiedDiff).toContain('@@ -1,');
    const renamed = original.replaceAll('quick', 'slow');
    expect(await ws.text('big.log')).toBe(renamed);

    const tolerant = await tools.execute('edit_file', {
      file_path: 'big.log',
      old_string: '    line 025000 the slow brown fox   \n',
      new_string: '    line 025000 changed\n',
    });
    expect(tolerant).toMatchObject({ ok: true, details: { tiers: ['indentation'] } });
    expect(await ws.text('big.log')).toBe(
      renamed.replace('line 025000 the slow brown fox\n', 'line 025000 changed\n'),
    );
  });

  it('needs a read of this version of the file first, but not of every line', async () => {
    const ws = await makeWorkspace({ 'big.log': lines(40_000) });
    const tools = ws.tools(STREAM);
    const edit = { file_path: 'big.log', old_string: 'line 000002 the', new_string: 'x' };
    expect(await tools.execute('edit_file', edit)).toMatchObject({ ok: false, code: 'NOT_READ' });
    await tools.execute('read_file', { file_path: 'big.log', limit: 5 });
    await writeFile(ws.path('big.log'), lines(40_001));
    expect(await tools.execute('edit_file', edit)).toMatchObject({ ok: false, code: 'STALE' });
    await tools.execute('read_file', { file_path: 'big.log', limit: 5 });
    const now = new Date();
    await utimes(ws.path('big.log'), now, new Date(now.getTime() + 5000));
    // A touched huge file counts as changed: its content is not hashed.
    expect(await tools.execute('edit_file', edit)).toMatchObject({ ok: false, code: 'STALE' });
    await tools.execute('read_file', { file_path: 'big.log', limit: 5 });
    expect(await tools.execute('edit_file', edit)).toMatchObject({ ok: true });
  });
});

describe('edit_lines on a huge file', () => {
  it('edits the first and the last line of a file without a final newline, keeping its BOM', async () => {
    const body = lines(50_000, '\n', false);
    const ws = await makeWorkspace({
      'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]),
    });
    const tools = ws.tools(STREAM);
    await tools.execute('read_file', { file_path: 'bom.txt', limit: 1 });
    const result = await tools.execute('edit_lines', {
      file_path: 'bom.txt',
      edits: [
        { range: [1, 2], replacement: 'first' },
        { range: [50_000, 50_001], replacement: 'last' },
        { range: [50_001, 50_001], replacement: 'appended' },
      ],
    });
    expect(result.ok).toBe(true);
    const bytes = await ws.bytes('bom.txt');
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString('utf8');
    const expected = body.split('\n');
    expected[0] = 'first';
    expected[49_999] = 'last';
    expect(text).toBe(`${expected.join('\n')}\nappended`);
    expect(result.details.unifiedDiff).toContain('@@ -1,4 +1,4 @@');
    expect(result.details.unifiedDiff).toContain('@@ -49997,4 +49997,5 @@');
  });

  it('keeps CRLF and refuses bad ranges with the line count', async () => {
    const ws = await makeWorkspace({ 'crlf.txt': lines(40_000, '\r\n') });
    const tools = ws.tools(STREAM);
    await tools.execute('read_file', { file_path: 'crlf.txt', offset: 20_000, limit: 1 });
    const bad = await tools.execute('edit_lines', {
      file_path: 'crlf.txt',
      edits: [{ range: [40_002, 40_002], replacement: 'x' }],
    });
    expect(bad).toMatchObject({ ok: false, code: 'INVALID_RANGE' });
    expect(bad.message).toContain('the file has 40000 lines');
    const ok = await tools.execute('edit_lines', {
      file_path: 'crlf.txt',
      edits: [{ range: [20_000, 20_001], replacement: 'one\ntwo' }],
    });
    expect(ok.ok).toBe(true);
    expect(await ws.text('crlf.txt')).toBe(
      lines(40_000, '\r\n').replace('line 020000 the quick brown fox\r\n', 'one\r\ntwo\r\n'),
    );
  });
});

describe('the gate on a huge file', () => {
  it('writes nothing when the file changes while the user decides (STALE), and leaves no temp file', async () => {
    const original = lines(40_000);
    const ws = await makeWorkspace({ 'big.log': original });
    const tools = ws.tools({
      ...STREAM,
      approve: async (request) => {
        await writeFile(ws.path('big.log'), `${original}appended by someone else\n`);
        expect(request.diff.hunks.length).toBe(1);
        return 'once' as const;
      },
    });
    await tools.execute('read_file', { file_path: 'big.log', limit: 3 });
    const result = await tools.execute('edit_lines', {
      file_path: 'big.log',
      edits: [{ range: [2, 3], replacement: 'changed' }],
    });
    expect(result).toMatchObject({ ok: false, code: 'STALE' });
    expect(await ws.text('big.log')).toBe(`${original}appended by someone else\n`);
    await noTemps(ws.root);
  });

  it('a denied change leaves no temp file; preview mode applies a streamed change later', async () => {
    const original = lines(40_000);
    const ws = await makeWorkspace({ 'big.log': original });
    const denied = ws.tools({ ...STREAM, approve: 'deny' });
    await denied.execute('read_file', { file_path: 'big.log', limit: 3 });
    const edit = { file_path: 'big.log', old_string: 'line 000002 the', new_string: 'line 2' };
    expect(await denied.execute('edit_file', edit)).toMatchObject({ ok: false, code: 'DENIED_USER' });
    await noTemps(ws.root);

    const preview = ws.tools({ ...STREAM, mode: 'preview' });
    await preview.execute('read_file', { file_path: 'big.log', limit: 3 });
    const staged = await preview.execute('edit_file', edit);
    expect(staged.ok).toBe(true);
    expect(await ws.text('big.log')).toBe(original);
    const applied = await preview.execute('apply_change', {
      change_id: staged.details.changeId,
      file_path: staged.details.path,
      change_hash: staged.details.changeHash,
    });
    expect(applied.ok).toBe(true);
    expect(await ws.text('big.log')).toBe(original.replace('line 000002 the', 'line 2'));
  });

  it('write_file and multi_edit refuse a huge file with TOO_LARGE and point to edit_file/edit_lines', async () => {
    const original = lines(40_000);
    const ws = await makeWorkspace({ 'big.log': original });
    const tools = ws.tools(STREAM);
    await tools.execute('read_file', { file_path: 'big.log', limit: 3 });
    const write = await tools.execute('write_file', { file_path: 'big.log', content: 'small now\n' });
    expect(write).toMatchObject({ ok: false, code: 'TOO_LARGE' });
    expect(write.message).toContain('edit_file');
    const multi = await tools.execute('multi_edit', {
      file_path: 'big.log',
      edits: [{ old_string: 'line 000001', new_string: 'x' }],
    });
    expect(multi).toMatchObject({ ok: false, code: 'TOO_LARGE' });
    expect(await ws.text('big.log')).toBe(original);
  });

  it('undo walks back several streamed edits, and keeps only a reverse patch', async () => {
    const original = lines(60_000);
    const state = await makeWorkspace();
    const ws = await makeWorkspace({ 'big.log': original });
    const tools = ws.tools({ ...STREAM, stateDir: state.root });
    await tools.execute('read_file', { file_path: 'big.log', limit: 3 });
    await tools.execute('edit_lines', {
      file_path: 'big.log',
      edits: [{ range: [10, 30_010], replacement: '' }],
    });
    await tools.execute('edit_file', { file_path: 'big.log', old_string: 'line 060000', new_string: 'end' });
    const patches = await readdir(state.path('history/patches'));
    expect(patches).toHaveLength(2);
    expect(
      (await undoPatchSizes(state.path('history/patches'), patches)).sort((a, b) => a - b)[0],
    ).toBeLessThan(200);
    expect((await tools.execute('undo_edit', { file_path: 'big.log' })).ok).toBe(true);
    expect((await tools.execute('undo_edit', { file_path: 'big.log' })).ok).toBe(true);
    expect(await ws.text('big.log')).toBe(original);
    expect(await readdir(state.path('history/patches'))).toEqual([]);
    expect(await tools.execute('undo_edit', { file_path: 'big.log' })).toMatchObject({
      ok: false,
      code: 'NOTHING_TO_UNDO',
    });
  });
});

async function undoPatchSizes(folder: string, names: string[]): Promise<number[]> {
  return Promise.all(names.map(async (name) => (await readFile(`${folder}/${name}`)).length));
}

describe('the edit rules on both paths', () => {
  it('refuse identical strings, an empty old_string on a file with text and a lone surrogate in the same words', async () => {
    const text = lines(200);
    const ws = await makeWorkspace({ 'small.txt': text, 'big.txt': text });
    // big.txt streams (threshold 1 byte), small.txt does not (the default threshold).
    const streamed = ws.tools({ streamThreshold: 1 });
    const inMemory = ws.tools();
    await streamed.execute('read_file', { file_path: 'big.txt' });
    await inMemory.execute('read_file', { file_path: 'small.txt' });
    const calls = [
      { old_string: 'line 000001', new_string: 'line 000001' },
      { old_string: '', new_string: 'x' },
      { old_string: 'line 000001', new_string: 'bad \uD800 surrogate' },
    ];
    for (const call of calls) {
      const big = await streamed.execute('edit_file', { file_path: 'big.txt', ...call });
      const small = await inMemory.execute('edit_file', { file_path: 'small.txt', ...call });
      expect(big.ok).toBe(false);
      expect(big.message.replace('big.txt', 'FILE')).toBe(small.message.replace('small.txt', 'FILE'));
    }
    expect(await ws.text('big.txt')).toBe(text);
    expect(await ws.text('small.txt')).toBe(text);
  });
});
