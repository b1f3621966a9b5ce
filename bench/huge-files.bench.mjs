// editgate on 1 GiB and 2 GiB text files (issue 7), against references measured in the same run: `cp` of the
// file (the floor for a full rewrite), `cp` + fsync (editgate's writes are durable: fsync before the
// rename), `sed -i` for the same edit, and reading the same bytes directly for a far read_file. Each editgate
// operation runs in a child process, so its peak RSS is its own; edits are timed five times (median), with
// the disk settled (`sync`) before each timing, since a shared machine's flushes otherwise dominate. Each size
// is measured on the disk and, where there is one, on a tmpfs (RAM), where fsync is free: there editgate's
// own work meets cp's without the disk's write-back in between.
// Targets: a full-rewrite edit within 2x of cp; peak RSS under 128 MB whatever the size; a repeated far
// read_file within 2x of reading those bytes directly.
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, statfsSync, unlinkSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatMs, formatRatio, median, printTable, runNodeChild, tempDir } from './lib.mjs';

const GiB = 1 << 30;
const SIZES = [1, 2];
const LINE_BYTES = 64; // every generated line is exactly this long, so line n starts at (n - 1) * LINE_BYTES
const READ_LINES = 2000; // read_file's default limit
const RUNS = 5;
const MARKER = 'UNIQUE-MARKER-NEAR-THE-END';
const self = fileURLToPath(import.meta.url);

/** Nobody's dirty pages (ours included) may be flushing while something is timed. */
const settle = () => spawnSync('sync', [], { stdio: 'ignore' });

/** Line n (1-based) of the generated file: 63 characters and "\n". */
function line(n) {
  const text = `${String(n).padStart(10, '0')} INSERT INTO log VALUES ('quick brown fox', ${n % 977});`;
  return `${text.padEnd(LINE_BYTES - 1, ' ').slice(0, LINE_BYTES - 1)}\n`;
}

// --- child mode: editgate operations, timed, with this process's peak RSS ------------------------------------
if (process.argv[2] === '--child') {
  const [, , , op, root, name, lineCountText] = process.argv;
  const lineCount = Number(lineCountText);
  const { createEditTools } = await import('../dist/tools/index.js');
  const tools = createEditTools({ root, approve: 'allow' });
  const run = async (tool, input) => {
    const start = performance.now();
    const result = await tools.execute(tool, { file_path: name, ...input });
    const ms = performance.now() - start;
    if (!result.ok) throw new Error(`${tool} failed: ${result.message}`);
    return ms;
  };
  const out = {};
  if (op === 'read') {
    const offset = lineCount - READ_LINES;
    out.first = await run('read_file', { offset });
    // The same lines read directly: open, read their bytes, decode, split (and, for the second figure,
    // numbered like read_file's output). Interleaved with read_file so both meet the same conditions.
    const direct = async (numbered) => {
      const start = performance.now();
      const handle = await open(join(root, name), 'r');
      const bytes = Buffer.allocUnsafe(READ_LINES * LINE_BYTES);
      await handle.read(bytes, 0, bytes.length, (offset - 1) * LINE_BYTES);
      await handle.close();
      const lines = bytes.toString('utf8').split('\n');
      if (numbered) lines.map((text, i) => `${String(offset + i).padStart(6, ' ')}\t${text}`).join('\n');
      return performance.now() - start;
    };
    const ours = [];
    const raw = [];
    const numbered = [];
    for (let i = 0; i < 25; i++) {
      ours.push(await run('read_file', { offset }));
      raw.push(await direct(false));
      numbered.push(await direct(true));
    }
    out.again = median(ours);
    out.direct = median(raw);
    out.directNumbered = median(numbered);
  } else {
    const target = op === 'edit_lines' ? Math.floor(lineCount / 2) : lineCount - 100;
    await run('read_file', { offset: target - 1, limit: 3 });
    const times = [];
    for (let i = 1; i <= RUNS; i++) {
      settle();
      times.push(
        op === 'edit_lines'
          ? await run('edit_lines', { edits: [{ range: [target, target + 1], replacement: `edited ${i}` }] })
          : await run('edit_file', {
              old_string: i === 1 ? MARKER : `CHANGED-${i - 1}`,
              new_string: `CHANGED-${i}`,
            }),
      );
    }
    out.edit = median(times);
  }
  out.rssMb = process.resourceUsage().maxRSS / 1024;
  console.log(JSON.stringify(out));
  process.exit(0);
}

// --- parent ---------------------------------------------------------------------------------------------------

function generate(path, size) {
  const lineCount = Math.floor(size / LINE_BYTES);
  const near = lineCount - 100;
  const fd = openSync(path, 'w');
  const block = Buffer.allocUnsafe(16384 * LINE_BYTES); // 1 MiB of lines per write
  for (let first = 1; first <= lineCount; first += 16384) {
    const last = Math.min(lineCount, first + 16383);
    let at = 0;
    for (let n = first; n <= last; n++) {
      const text = n === near ? `${`${MARKER} ${line(n)}`.slice(0, LINE_BYTES - 1)}\n` : line(n);
      at += block.write(text, at, 'latin1');
    }
    writeSync(fd, block, 0, at);
  }
  closeSync(fd);
  return lineCount;
}

function timeCommand(command, args) {
  settle();
  const start = performance.now();
  const child = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - start;
  if (child.status !== 0)
    throw new Error(`${command} ${args.join(' ')}: ${String(child.stderr).slice(0, 300)}`);
  return ms;
}

async function child(op, root, name, lineCount) {
  return runNodeChild(self, ['--child', op, root, name, String(lineCount)], { timeoutMs: 600_000 });
}

/**
 * Where the files go: the temp folder (a real disk, where a durable write waits for the disk), and, where
 * the machine has one with room, a RAM-backed tmpfs (fsync costs nothing there, so editgate's own work is
 * compared with cp's without the disk in between).
 */
function places(size) {
  const found = [{ name: 'disk', parent: undefined }];
  try {
    if (statfsSync('/dev/shm').type === TMPFS_MAGIC) found.push({ name: 'tmpfs', parent: '/dev/shm' });
  } catch {
    // No /dev/shm (macOS, some containers): the disk figures alone.
  }
  return found.map((place) => ({ ...place, size }));
}
const TMPFS_MAGIC = 0x01021994;

// Said before anything is written: this benchmark needs room, on the disk and in RAM (a tmpfs is memory).
const targets = places(0).map(({ parent }) => parent ?? tmpdir());
console.log(
  `Writes ${SIZES.join(' and ')} GiB files (up to ${(2.2 * Math.max(...SIZES)).toFixed(1)} GiB at a time: ` +
    `the file, its copy or edited version, and undo data) to ${targets.join(' and ')}, one size and place ` +
    'at a time, and removes them when done; a place without that much room is skipped. Ctrl-C stops it.',
);

const rows = [];
const checks = [];
for (const gib of SIZES) {
  for (const place of places(gib * GiB)) await measure(place, `${gib} GiB`);
}

async function measure({ name: where, parent, size }, sizeLabel) {
  const dir = tempDir('editgate-huge-', parent);
  const stats = statfsSync(dir.path);
  const free = stats.bavail * stats.bsize;
  // The file, cp's copy or editgate's temp file, and a little for the reverse patch.
  if (free < 2.2 * size) {
    console.log(`skipping ${sizeLabel} on ${where}: only ${(free / GiB).toFixed(1)} GiB free in ${dir.path}`);
    dir.remove();
    return;
  }
  const name = 'huge.sql';
  const path = join(dir.path, name);
  const lineCount = generate(path, size);
  const copy = join(dir.path, 'copy.sql');
  const cpTimes = [];
  const cpSyncTimes = [];
  for (let i = 0; i < RUNS; i++) {
    cpTimes.push(timeCommand('cp', [path, copy]));
    unlinkSync(copy);
    cpSyncTimes.push(timeCommand('sh', ['-c', `cp "${path}" "${copy}" && sync "${copy}"`]));
    unlinkSync(copy);
  }
  const cp = median(cpTimes);
  const cpSync = median(cpSyncTimes);

  const read = await child('read', dir.path, name, lineCount);
  const lines = await child('edit_lines', dir.path, name, lineCount);
  const sedLines = timeCommand('sed', ['-i', `${Math.floor(lineCount / 2)}s/.*/edited by sed/`, path]);
  const edit = await child('edit_file', dir.path, name, lineCount);
  const sedFile = timeCommand('sed', ['-i', `s/CHANGED-${RUNS}/CHANGED-BY-SED/`, path]);
  dir.remove();

  const label = `${sizeLabel} ${where}`;
  const mb = (value) => `${value.toFixed(0)} MB`;
  rows.push([label, 'cp', formatMs(cp), '1.00x', formatRatio(cp, cpSync), '', '']);
  rows.push([label, 'cp + fsync', formatMs(cpSync), formatRatio(cpSync, cp), '1.00x', '', '']);
  for (const [operation, ours, sed] of [
    ['edit_lines, middle', lines, sedLines],
    ['edit_file, unique near end', edit, sedFile],
  ]) {
    rows.push([
      label,
      operation,
      formatMs(ours.edit),
      formatRatio(ours.edit, cp),
      formatRatio(ours.edit, cpSync),
      `${formatRatio(ours.edit, sed)} of sed -i`,
      mb(ours.rssMb),
    ]);
    rows.push([
      label,
      'sed -i, same edit',
      formatMs(sed),
      formatRatio(sed, cp),
      formatRatio(sed, cpSync),
      '',
      '',
    ]);
  }
  rows.push([label, 'read_file far, first (indexes)', formatMs(read.first), '', '', '', mb(read.rssMb)]);
  rows.push([
    label,
    'read_file far, again',
    formatMs(read.again),
    '',
    '',
    `${formatRatio(read.again, read.direct)} of direct`,
    '',
  ]);
  rows.push([label, 'direct read of those bytes', formatMs(read.direct), '', '', '', '']);
  rows.push([
    label,
    '  and numbering them',
    formatMs(read.directNumbered),
    '',
    '',
    `${formatRatio(read.again, read.directNumbered)} of this`,
    '',
  ]);

  // On a disk, editgate's fsync before the rename waits for the disk and cp does not wait at all, so the
  // fair floor there is cp + fsync; on tmpfs the two do the same work and cp itself is the floor.
  for (const [what, ms] of [
    ['edit_lines', lines.edit],
    ['edit_file', edit.edit],
  ]) {
    checks.push([
      `${label}: ${what} within 2x of cp`,
      ms <= 2 * cp,
      `${formatRatio(ms, cp)} of cp, ${formatRatio(ms, cpSync)} of cp + fsync`,
    ]);
  }
  const rss = Math.max(read.rssMb, lines.rssMb, edit.rssMb);
  checks.push([`${label}: peak RSS under 128 MB`, rss < 128, mb(rss)]);
  checks.push([
    `${label}: repeated far read within 2x of reading those bytes directly`,
    read.again <= 2 * read.direct,
    `${formatRatio(read.again, read.direct)}; ${formatRatio(read.again, read.directNumbered)} of reading and numbering them`,
  ]);
}

console.log();
printTable(['file', 'operation', 'time', 'vs cp', 'vs cp+fsync', 'vs other', 'peak RSS'], rows);
console.log();
for (const [what, ok, figure] of checks) console.log(`${ok ? 'met    ' : 'MISSED '} ${what} (${figure})`);
