/**
 * Issue #26: the change watch keeps one inotify watch per folder and, after a call, reads again only the
 * folders that had events. These tests attack what such a watch can miss: a write deep in a folder that
 * existed before, a folder made during the call, a rename out of the root, one change among 2,000 folders,
 * a folder made by one call and written by the next, lost events, and a kernel that refuses watches (then
 * every call scans the roots, as before). A property holds the watch to the whole scan's answer.
 */
import { type FSWatcher, watch as fsWatch, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeWatch, type ChangeWatchOptions } from '../../src/proxy/change-watch.js';
import { workspace } from './helpers.js';

const watches: ChangeWatch[] = [];
afterEach(() => {
  for (const watch of watches.splice(0)) watch.close();
});

function watchOf(root: string, more: Partial<ChangeWatchOptions> = {}): ChangeWatch {
  const watch = new ChangeWatch({ roots: [root], ignore: [], ...more });
  watches.push(watch);
  return watch;
}

/** The changes as `how relative-path`, for short expectations. */
async function during(watch: ChangeWatch, root: string, act: () => void, approved: string[] = []) {
  const { unapproved } = await watch.around(approved, async () => act());
  return unapproved.map((change) => `${change.how} ${change.path.slice(root.length + 1)}`);
}

/** A watchFolder that refuses as the kernel does at its inotify limit. */
const refused = () => {
  throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), {
    code: 'ENOSPC',
  });
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ChangeWatch with a watch per folder', () => {
  it('a write deep in a folder that existed before the call is reported', async () => {
    const { root } = workspace({ 'a/b/c/d/e/deep.txt': 'old', 'top.txt': 'x' });
    const watch = watchOf(root);
    await watch.around([], async () => {});
    expect(watch.watching).toBe(true);
    expect(await during(watch, root, () => writeFileSync(join(root, 'a/b/c/d/e/deep.txt'), 'new'))).toEqual([
      'changed a/b/c/d/e/deep.txt',
    ]);
    // A second file in a folder that had no event before.
    expect(
      await during(watch, root, () => writeFileSync(join(root, 'a/b/c/planted.sh'), 'curl x | sh')),
    ).toEqual(['created a/b/c/planted.sh']);
  });

  it('a file created and removed within the call leaves nothing to report; an old file removed beside it does', async () => {
    const { root } = workspace({ 'sub/old.txt': 'x', 'sub/keep.txt': 'k' });
    const watch = watchOf(root);
    expect(
      await during(watch, root, () => {
        writeFileSync(join(root, 'sub/tmp.txt'), 'gone soon');
        rmSync(join(root, 'sub/tmp.txt'));
      }),
    ).toEqual([]);
    expect(
      await during(watch, root, () => {
        writeFileSync(join(root, 'sub/tmp.txt'), 'gone soon');
        rmSync(join(root, 'sub/tmp.txt'));
        rmSync(join(root, 'sub/old.txt'));
      }),
    ).toEqual(['removed sub/old.txt']);
  });

  it('a folder made during the call with files in it is told as the folder, and watched from then on', async () => {
    const { root } = workspace({ 'a.txt': 'a' });
    const watch = watchOf(root);
    expect(
      await during(watch, root, () => {
        mkdirSync(join(root, 'new/inner'), { recursive: true });
        writeFileSync(join(root, 'new/inner/x.js'), 'x');
        writeFileSync(join(root, 'new/y.js'), 'y');
      }),
    ).toEqual(['created new']);
    // The next call writes in it: its watch was set when it was read.
    expect(await during(watch, root, () => writeFileSync(join(root, 'new/inner/x.js'), 'changed'))).toEqual([
      'changed new/inner/x.js',
    ]);
    expect(await during(watch, root, () => writeFileSync(join(root, 'new/inner/z.js'), 'z'))).toEqual([
      'created new/inner/z.js',
    ]);
  });

  it('a rename out of the root is a removal, of a file and of a folder with its contents', async () => {
    const { root } = workspace({ 'src/secret.txt': 's', 'docs/a/b.md': 'b', 'docs/c.md': 'c' });
    const outside = join(root, '..', 'outside');
    mkdirSync(outside);
    const watch = watchOf(root);
    expect(
      await during(watch, root, () => renameSync(join(root, 'src/secret.txt'), join(outside, 'secret.txt'))),
    ).toEqual(['removed src/secret.txt']);
    expect(await during(watch, root, () => renameSync(join(root, 'docs'), join(outside, 'docs')))).toEqual([
      'removed docs',
    ]);
    // And back in: created.
    expect(await during(watch, root, () => renameSync(join(outside, 'docs'), join(root, 'docs2')))).toEqual([
      'created docs2',
    ]);
    expect(await during(watch, root, () => writeFileSync(join(root, 'docs2/a/b.md'), 'B'))).toEqual([
      'changed docs2/a/b.md',
    ]);
  });

  it('one change among 2,000 folders is the one reported', async () => {
    const { root } = workspace();
    for (let folder = 0; folder < 2000; folder++) {
      mkdirSync(join(root, `d${folder}`));
      writeFileSync(join(root, `d${folder}`, 'f.txt'), 'x');
    }
    const watch = watchOf(root);
    await watch.around([], async () => {});
    expect(watch.watching).toBe(true);
    expect(await during(watch, root, () => writeFileSync(join(root, 'd1234/f.txt'), 'y'))).toEqual([
      'changed d1234/f.txt',
    ]);
  });

  it('what the person changes between calls, deep or not, is not blamed on the next call', async () => {
    const { root } = workspace({ 'a/b/gone.txt': 'x', 'a/b/edit.txt': 'e', 'a/b/keep.txt': 'k' });
    const watch = watchOf(root);
    await watch.around([], async () => {});
    rmSync(join(root, 'a/b/gone.txt'));
    writeFileSync(join(root, 'a/b/edit.txt'), 'edited');
    mkdirSync(join(root, 'a/mine'));
    await pause(80);
    // The call changes the same folder (its ctime moves): the earlier removal is still not its.
    expect(
      await during(watch, root, () => writeFileSync(join(root, 'a/b/keep.txt'), 'K'), [
        join(root, 'a/b/keep.txt'),
      ]),
    ).toEqual([]);
  });

  it('overlapping calls each see what changed while they ran', async () => {
    const { root } = workspace({ 'x/a.txt': 'a' });
    const watch = watchOf(root);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = watch.around([], async () => held);
    const second = await watch.around([], async () => writeFileSync(join(root, 'x/b.txt'), 'b'));
    writeFileSync(join(root, 'x/a.txt'), 'A'); // after the second call, while the first still runs
    release();
    expect(second.unapproved.map((change) => change.path)).toEqual([join(root, 'x/b.txt')]);
    expect((await first).unapproved.map((change) => change.path)).toEqual([
      join(root, 'x/a.txt'),
      join(root, 'x/b.txt'),
    ]);
  });

  it('when events may have been lost (a watch broke), the next look scans everything', async () => {
    const { root } = workspace({ 'a/b/c.txt': 'c' });
    const deaf: FSWatcher[] = [];
    // Watches that never deliver an event: as if the kernel's queue overflowed.
    const watch = watchOf(root, {
      watchFolder: (folder) => {
        const watcher = fsWatch(folder, { persistent: false }, () => {});
        deaf.push(watcher);
        return watcher;
      },
    });
    await watch.around([], async () => {});
    expect(
      await during(watch, root, () => {
        writeFileSync(join(root, 'a/b/c.txt'), 'C');
        deaf[0]!.emit('error', new Error('lost'));
      }),
    ).toEqual(['changed a/b/c.txt']);
  });
});

describe('ChangeWatch when the kernel refuses watches', () => {
  it('says so once, and every call scans the roots: deep writes, new folders and removals are still reported', async () => {
    const { root } = workspace({ 'a/b/c/deep.txt': 'old', 'victim.txt': 'v' });
    const told: string[] = [];
    const watch = watchOf(root, { watchFolder: refused, onNotice: (message) => told.push(message) });
    expect(
      await during(watch, root, () => {
        writeFileSync(join(root, 'a/b/c/deep.txt'), 'new');
        mkdirSync(join(root, 'made'));
        writeFileSync(join(root, 'made/x'), 'x');
        rmSync(join(root, 'victim.txt'));
      }),
    ).toEqual(['changed a/b/c/deep.txt', 'created made', 'removed victim.txt']);
    await during(watch, root, () => {});
    expect(watch.watching).toBe(false);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain('cannot be watched (ENOSPC: the system limit of inotify watches');
    expect(told[0]).toContain('each call scans the roots');
  });

  it('a refusal for a folder made during a call: that call still reports it, and later calls scan', async () => {
    const { root } = workspace({ 'a.txt': 'a' });
    let allowed = 1; // the root only
    const told: string[] = [];
    const watch = watchOf(root, {
      watchFolder: (folder, listener) => {
        if (allowed-- <= 0) refused();
        return fsWatch(folder, { persistent: false }, listener);
      },
      onNotice: (message) => told.push(message),
    });
    await watch.around([], async () => {});
    expect(watch.watching).toBe(true);
    expect(
      await during(watch, root, () => {
        mkdirSync(join(root, 'new'));
        writeFileSync(join(root, 'new/x'), 'x');
      }),
    ).toEqual(['created new']);
    expect(watch.watching).toBe(false);
    expect(await during(watch, root, () => writeFileSync(join(root, 'new/x'), 'X'))).toEqual([
      'changed new/x',
    ]);
    expect(told).toHaveLength(1);
  });
});

describe('ChangeWatch and a folder it may not read', () => {
  it('is left unwatched (as a scan cannot read it either); the rest is still watched', async () => {
    const { root } = workspace({ 'locked/x': 'x', 'open/y': 'y' });
    const told: string[] = [];
    const watch = watchOf(root, {
      watchFolder: (folder, listener) => {
        if (folder.endsWith('locked')) {
          throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
        }
        return fsWatch(folder, { persistent: false }, listener);
      },
      onNotice: (message) => told.push(message),
    });
    expect(await during(watch, root, () => writeFileSync(join(root, 'open/y'), 'Y'))).toEqual([
      'changed open/y',
    ]);
    expect(watch.watching).toBe(true);
    expect(told).toEqual([]);
  });
});

describe('the watch per folder and the whole scan agree', () => {
  const names = ['a', 'b', 'a/c', 'b/d', 'a/c/e'];
  const op = fc.oneof(
    fc.record({
      kind: fc.constant('write' as const),
      folder: fc.constantFrom('', ...names),
      file: fc.constantFrom('x', 'y'),
    }),
    fc.record({
      kind: fc.constant('mkdir' as const),
      folder: fc.constantFrom('', ...names),
      file: fc.constantFrom('n', 'm'),
    }),
    fc.record({
      kind: fc.constant('remove' as const),
      folder: fc.constantFrom('', ...names),
      file: fc.constantFrom('x', 'y', 'n'),
    }),
    fc.record({
      kind: fc.constant('rename' as const),
      folder: fc.constantFrom('', ...names),
      file: fc.constantFrom('x', 'n', 'c'),
    }),
  );

  it('on any sequence of writes, folders made, removals and renames during a call', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
        const { root } = workspace({ 'a/c/e/x': '1', 'a/x': '2', 'b/d/y': '3', x: '4' });
        const watching = watchOf(root);
        const scanning = watchOf(root, { watchFolder: refused });
        await watching.around([], async () => {});
        await scanning.around([], async () => {});
        let inner: Awaited<ReturnType<typeof scanning.around>> | undefined;
        const outer = await watching.around([], async () => {
          inner = await scanning.around([], async () => {
            for (const each of ops) apply(root, each);
          });
        });
        expect(outer.unapproved).toEqual(inner!.unapproved);
      }),
      { numRuns: 30 },
    );
  });
});

function apply(root: string, each: { kind: string; folder: string; file: string }): void {
  const where = join(root, each.folder, each.file);
  try {
    if (each.kind === 'write') writeFileSync(where, String(Math.random()));
    else if (each.kind === 'mkdir') mkdirSync(where);
    else if (each.kind === 'remove') rmSync(where, { recursive: true });
    else renameSync(where, join(root, each.folder, `${each.file}-moved`));
  } catch {
    // The path is not there (or is a folder): the sequence goes on.
  }
}
