/**
 * The Streamer below the tools: a change prepared by streaming, then committed like any other write.
 */
import { appendFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../../src/core/progress.js';
import { commitChange } from '../../../src/workspace/commit.js';
import type { FileBase } from '../../../src/workspace/read.js';
import { type PreparedWrite, planLineEdits, Streamer } from '../../../src/workspace/stream/index.js';

const commitPrepared = (base: FileBase, prepared: PreparedWrite) =>
  commitChange(base, { type: 'prepared', prepared });

const folders: string[] = [];
afterEach(async () => {
  while (folders.length > 0) await rm(folders.pop()!, { recursive: true, force: true });
});

async function fileWith(text: string): Promise<string> {
  const folder = await realpath(await mkdtemp(join(tmpdir(), 'editgate-streamer-')));
  folders.push(folder);
  const path = join(folder, 'f.txt');
  await writeFile(path, text);
  return path;
}

const text = Array.from({ length: 2000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

async function replaceLine(streamer: Streamer, path: string, line: number, replacement: string) {
  const file = await streamer.open(path, 'f.txt');
  if (!file) throw new Error('not streamed');
  try {
    const change = await streamer.change(file, undefined, async ({ handle, index }) => {
      const spans = await planLineEdits(
        handle,
        index,
        [{ range: [line, line + 1], replacement }],
        streamer.chunkSize,
      );
      return { spans: () => spans, reversible: true };
    });
    return { change, base: file };
  } finally {
    await file.close();
  }
}

describe('Streamer', () => {
  it('lets the filesystem copy a far prefix, keeping the mode, and writes the same bytes', async () => {
    const path = await fileWith(text);
    await chmod(path, 0o640);
    const streamer = new Streamer({ threshold: 1, chunkSize: 64, kernelCopy: 'copy', kernelCopyMin: 0 });
    const { change, base } = await replaceLine(streamer, path, 1999, 'changed');
    expect(change.kind).toBe('modify');
    expect((await stat(change.prepared!.temp)).mode & 0o777).toBe(0o640);
    await commitPrepared(
      { path, exists: true, fingerprint: base.fingerprint, display: 'f.txt' },
      change.prepared!,
    );
    expect(await readFile(path, 'utf8')).toBe(text.replace('line 1999\n', 'changed\n'));
    expect((await stat(path)).mode & 0o777).toBe(0o640);
    // The index handed to the cache for the new version finds lines without a scan from the start.
    const again = await streamer.open(path, 'f.txt');
    expect(streamer.indexes.get(path, again!.fingerprint.hash)?.lineCount).toBe(2000);
    await again!.close();
  });

  it('reports progress, and refuses with STALE (leaving nothing behind) when the file changes during the copy', async () => {
    const path = await fileWith(text);
    const events: ProgressEvent[] = [];
    let appended = false;
    const streamer = new Streamer({
      threshold: 1,
      chunkSize: 256,
      onProgress: (event) => {
        events.push(event);
        if (event.phase === 'write' && !appended) {
          appended = true;
          appendFileSync(path, 'someone else\n');
        }
      },
    });
    await expect(replaceLine(streamer, path, 10, 'x')).rejects.toMatchObject({ code: 'STALE' });
    expect(new Set(events.map((event) => event.phase))).toEqual(new Set(['index', 'write']));
    expect(events.every((event) => event.path === 'f.txt' && event.done <= event.total)).toBe(true);
    expect(await readdir(join(path, '..'))).toEqual(['f.txt']);
  });

  it('commits only onto the version it was computed from', async () => {
    const path = await fileWith(text);
    const streamer = new Streamer({ threshold: 1, chunkSize: 128 });
    const { change, base } = await replaceLine(streamer, path, 5, 'five');
    // Same size, same content length: only the stat fingerprint (and the span check) can tell.
    await writeFile(path, text.replace('line 5\n', 'LINE 5\n'));
    await expect(
      commitPrepared(
        { path, exists: true, fingerprint: base.fingerprint, display: 'f.txt' },
        change.prepared!,
      ),
    ).rejects.toMatchObject({ code: 'STALE' });
    expect(await readFile(path, 'utf8')).toBe(text.replace('line 5\n', 'LINE 5\n'));
    expect(await readdir(join(path, '..'))).toEqual(['f.txt']);
  });
});
