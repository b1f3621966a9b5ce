/**
 * Issue #13, item 2: a local process that flips a folder inside the root between a real folder and a
 * symlink to outside (renameat2 RENAME_EXCHANGE, in a tight loop, from a tiny C program built here with the
 * system compiler) while every tool runs on files in that folder, on the in-memory and the streaming path.
 * Whatever the timing: no read returns outside bytes, nothing outside is created, changed or left behind
 * (no temp files), and a call either works on the file inside or is refused.
 *
 * Issue #27, item 3: the same race against apply_patch's deletions and moves (a move deletes its source),
 * whose bases once lacked the root, so their folder was opened by name: 300 Delete File calls under the
 * flipper deleted 34 files outside. Now no file outside is deleted, moved or created.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { lstat, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEditTools, type EditTools } from '../../src/tools/index.js';

/** Calls per tool and path: enough for thousands of flips to land between a check and an open. */
const ATTEMPTS = 60;

const FLIPPER_SOURCE = `
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
int main(int argc, char **argv) {
  if (argc != 3) return 2;
  if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) != 0) {
    perror("renameat2(RENAME_EXCHANGE)");
    return 1;
  }
  puts("flipping");
  fflush(stdout);
  /* Each state held for a random 0-255 microseconds: long enough that a call often passes the check on
     the real folder, short enough that the folder often changes before the call opens the file. */
  for (;;) {
    syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE);
    usleep((useconds_t)(rand() & 255));
  }
}
`;

/** Builds the flipper with the first C or C++ compiler found; a missing compiler fails the test, saying so. */
function buildFlipper(folder: string): string {
  const source = join(folder, 'flip.c');
  const binary = join(folder, 'flip');
  execFileSync('sh', ['-c', `cat > '${source}'`], { input: FLIPPER_SOURCE });
  const tried: string[] = [];
  for (const compiler of ['cc', 'gcc', 'clang', 'g++', 'c++', 'clang++']) {
    try {
      const language = compiler.endsWith('++') ? ['-x', 'c++'] : [];
      execFileSync(compiler, [...language, '-O2', '-o', binary, source], { stdio: 'pipe' });
      return binary;
    } catch (error) {
      tried.push(`${compiler}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  throw new Error(
    `This test needs a C compiler (cc, gcc, clang or g++) to build its folder-flipping helper, and none worked:\n${tried.join('\n')}\nInstall one (e.g. apt-get install gcc) and run it again.`,
  );
}

const INSIDE_READ = 'inside: the file the guard checked\n';
const OUTSIDE_READ = 'SECRET-OUTSIDE-BYTES must never be read\n';
const EDIT_TEXT = 'ping\nline two\nline three\n';
/** Above the streaming threshold set below, so the same calls take the streaming path. */
const BIG_TEXT = `ping\n${'a streamed line of the big file\n'.repeat(120)}`;
const STREAM_THRESHOLD = 2048;

let base: string;
let root: string;
let outside: string;
let flipper: string;
let outsideBefore: string[];
/** The outside folder of the deletes-and-moves race, and what it holds before. */
let gone: string;
let goneBefore: string[];

/** Delete File calls, and moves, in the deletes-and-moves race. */
const DELETES = 300;
const MOVES = 150;

/** Every file in `folder` with the start of its content, one string each (a short diff when it fails). */
async function listing(folder: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await readdir(folder)).sort()) {
    out.push(`${name}: ${JSON.stringify((await readFile(join(folder, name), 'utf8')).slice(0, 48))}`);
  }
  return out;
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'editgate-flip-')));
  flipper = buildFlipper(base);
  root = join(base, 'root');
  outside = join(base, 'outside');
  await mkdir(join(root, 'sub'), { recursive: true });
  await mkdir(outside);
  // The same names on both sides; edit targets hold the same text, so an edit that landed outside would
  // work there and show up as changed bytes.
  for (const folder of [join(root, 'sub'), outside]) {
    await writeFile(join(folder, 'r.txt'), folder === outside ? OUTSIDE_READ : INSIDE_READ);
    await writeFile(join(folder, 'e.txt'), EDIT_TEXT);
    await writeFile(join(folder, 'big.txt'), BIG_TEXT);
    await writeFile(
      join(folder, 'big-read.txt'),
      (folder === outside ? OUTSIDE_READ : INSIDE_READ).repeat(80),
    );
  }
  await symlink(outside, join(root, 'swap'));
  outsideBefore = await listing(outside);
  // For deletes and moves: the same names inside (root/dm) and outside (gone), each file's text saying
  // which side it is on, so a deletion or a move that went outside shows as a missing or changed file.
  gone = join(base, 'gone');
  for (const folder of [join(root, 'dm'), gone]) {
    await mkdir(folder);
    const side = folder === gone ? 'outside' : 'inside';
    for (let i = 0; i < DELETES; i++) await writeFile(join(folder, `d${i}.txt`), `${side} d${i}\n`);
    for (let i = 0; i < MOVES; i++) await writeFile(join(folder, `m${i}.txt`), `${side} m${i}\n`);
  }
  await symlink(gone, join(root, 'dmswap'));
  goneBefore = await listing(gone);
}, 60_000);

afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

async function startFlipping(real = 'sub', link = 'swap'): Promise<ChildProcess> {
  const child = spawn(flipper, [join(root, real), join(root, link)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const lines = createInterface({ input: child.stdout! });
  const [line] = await Promise.race([
    once(lines, 'line') as Promise<string[]>,
    once(child, 'exit').then(([code]) => {
      throw new Error(`the flipper stopped (exit ${code}): ${stderr}`);
    }),
  ]);
  expect(line).toBe('flipping');
  return child;
}

async function stopFlipping(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

interface Tally {
  ok: number;
  refused: Record<string, number>;
  leaks: string[];
}

function count(tally: Tally, tool: string, result: Awaited<ReturnType<EditTools['execute']>>): void {
  if (result.ok) {
    tally.ok++;
    if (result.message.includes('SECRET-OUTSIDE')) tally.leaks.push(`${tool} returned outside bytes`);
    return;
  }
  const key = `${tool}:${result.code}`;
  tally.refused[key] = (tally.refused[key] ?? 0) + 1;
  if (result.message.includes('SECRET-OUTSIDE')) tally.leaks.push(`${tool} refusal quoted outside bytes`);
}

/** Every tool, ATTEMPTS times, on `file` (read and changed) and `readFile` (read only). */
async function attack(tools: EditTools, file: string, readTarget: string, tally: Tally): Promise<void> {
  for (let i = 0; i < ATTEMPTS; i++) {
    count(tally, 'read_file', await tools.execute('read_file', { file_path: readTarget }));
    count(tally, 'read_file', await tools.execute('read_file', { file_path: file, limit: 3 }));
    const flip = i % 2 === 0 ? ['ping', 'pong'] : ['pong', 'ping'];
    count(
      tally,
      'edit_file',
      await tools.execute('edit_file', { file_path: file, old_string: flip[0], new_string: flip[1] }),
    );
    count(
      tally,
      'multi_edit',
      await tools.execute('multi_edit', {
        file_path: file,
        edits: [{ old_string: flip[1], new_string: flip[0] }],
      }),
    );
    count(
      tally,
      'edit_lines',
      await tools.execute('edit_lines', {
        file_path: file,
        edits: [{ range: [2, 3], replacement: `line ${i}\n` }],
      }),
    );
    count(tally, 'undo_edit', await tools.execute('undo_edit', { file_path: file }));
    count(
      tally,
      'write_file',
      await tools.execute('write_file', { file_path: `sub/w${i % 4}.txt`, content: `written ${i}\n` }),
    );
    // A change set (apply_patch): a file added, then deleted, through the change-set commit.
    const added = `sub/p${i}.txt`;
    count(
      tally,
      'apply_patch',
      await tools.execute('apply_patch', {
        patch: `*** Begin Patch\n*** Add File: ${added}\n+patched ${i}\n*** End Patch\n`,
      }),
    );
    count(
      tally,
      'apply_patch',
      await tools.execute('apply_patch', {
        patch: `*** Begin Patch\n*** Delete File: ${added}\n*** End Patch\n`,
      }),
    );
  }
}

describe('a folder flipped between a real folder and a symlink to outside, by another process', () => {
  it(`never lets a tool read or write outside the root (${ATTEMPTS} rounds of every tool, both paths)`, {
    timeout: 120_000,
  }, async () => {
    const tally: Tally = { ok: 0, refused: {}, leaks: [] };
    const child = await startFlipping();
    try {
      const memory = createEditTools({ root, approve: 'allow', requireReadBeforeEdit: false });
      await attack(memory, 'sub/e.txt', 'sub/r.txt', tally);
      const streamed = createEditTools({
        root,
        approve: 'allow',
        requireReadBeforeEdit: false,
        streamThreshold: STREAM_THRESHOLD,
      });
      await attack(streamed, 'sub/big.txt', 'sub/big-read.txt', tally);
    } finally {
      await stopFlipping(child);
    }
    // No outside bytes read; nothing outside created, changed or left behind (temp files included).
    expect({ leaks: tally.leaks, outside: await listing(outside) }).toEqual({
      leaks: [],
      outside: outsideBefore,
    });
    // The race was real: calls were refused because a folder on the way changed, and others worked.
    const refusedOutside = Object.entries(tally.refused)
      .filter(([key]) => key.endsWith(':OUTSIDE_ROOT'))
      .reduce((sum, [, n]) => sum + n, 0);
    expect(refusedOutside).toBeGreaterThan(0);
    expect(tally.ok).toBeGreaterThan(0);
    // Inside, no temp file is left either (whichever name the real folder has now).
    const real = (await lstat(join(root, 'sub'))).isDirectory() ? 'sub' : 'swap';
    const insideNames = await readdir(join(root, real));
    expect(insideNames.filter((name) => name.includes('.editgate-'))).toEqual([]);
  });
});

describe('deletes and moves while a folder flips to a symlink to outside (#27)', () => {
  it(`never deletes, moves or creates a file outside the root (${DELETES} deletes, ${MOVES} moves)`, {
    timeout: 120_000,
  }, async () => {
    const tally: Tally = { ok: 0, refused: {}, leaks: [] };
    const child = await startFlipping('dm', 'dmswap');
    try {
      const tools = createEditTools({ root, approve: 'allow', requireReadBeforeEdit: false });
      for (let i = 0; i < DELETES; i++) {
        const patch = `*** Begin Patch\n*** Delete File: dm/d${i}.txt\n*** End Patch\n`;
        count(tally, 'delete', await tools.execute('apply_patch', { patch }));
      }
      for (let i = 0; i < MOVES; i++) {
        const patch = `*** Begin Patch\n*** Update File: dm/m${i}.txt\n*** Move to: dm/n${i}.txt\n*** End Patch\n`;
        count(tally, 'move', await tools.execute('apply_patch', { patch }));
      }
    } finally {
      await stopFlipping(child);
    }
    // Every file outside still there with its own text, and nothing new there (no moved file, no temp).
    expect(await listing(gone)).toEqual(goneBefore);
    // The race was real: some calls were refused because the folder changed, and others worked.
    const refusedOutside = Object.entries(tally.refused)
      .filter(([key]) => key.endsWith(':OUTSIDE_ROOT'))
      .reduce((sum, [, n]) => sum + n, 0);
    expect(refusedOutside).toBeGreaterThan(0);
    expect(tally.ok).toBeGreaterThan(0);
  });
});
