// The cost of one edit (issue #12), against references measured in the same run:
// - in process: editgate's edit_file through createEditTools on a 60 KB, 2,000-line JS file, against the
//   atomic-write floor of the same bytes (temp file, write, fsync, rename, folder fsync) with node:fs/promises;
// - over MCP: `editgate mcp` against the reference MCP filesystem server (@modelcontextprotocol/server-
//   filesystem, a devDependency) driven the same way, by the MCP SDK client over stdio: the same 100 unique
//   edits to the same file, each server its own copy;
// - beside the MCP edits, what editgate's two fsyncs cost at that moment (the reference server makes none):
//   the same bytes written atomically with and without them, into a third folder (information, no target);
// - the CPU time each server used for those edits, user and system, all threads (information, Linux only);
// - then 100 more edits on the same servers, timed apart (information: a fresh server's first edits also pay
//   for the engine compiling its code);
// - MCP cold start: spawn -> initialize -> tools/list, for both servers;
// - 5 MB and 50 MB files: a few edits through both servers, per edit, with each server's peak RSS.
// The two sides of a comparison take turns call by call (an editgate edit, then the reference's of the same
// bytes, then the next pair, the order swapped every pair), so a load spike on a shared machine falls on both
// alike. A round is one file and one set of servers; each cell gives the median of the rounds and their range.
// Targets: in-process <= 2x the floor; MCP edit <= 1.0x the reference; cold start <= 1.0x the reference;
// 5 MB and 50 MB at least 2x ahead of the reference (ratio <= 0.5x) with memory bounded.
// Environment: EDITGATE_BENCH_ROUNDS (default 3), EDITGATE_BENCH_BIG=0 to skip the 5 MB and 50 MB part.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  benchEnv,
  collectGarbage,
  cpuMsOf,
  formatMs,
  formatRatio,
  median,
  peakRssOfMb,
  printTable,
  writeTrustedConfig,
} from './lib.mjs';

const ROUNDS = Number(process.env.EDITGATE_BENCH_ROUNDS ?? 3);
const BIG = process.env.EDITGATE_BENCH_BIG !== '0';
const EDITS = 100;
const LINES = 2000;
const LINE_BYTES = 30; // 2,000 lines of 30 bytes: 60,000 bytes
const STARTS = 10; // cold starts per side per round
const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const reference = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);
const { createEditTools } = await import('../dist/tools/index.js');
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');

/** Line n (0-based) of the 60 KB file: a JS statement padded to LINE_BYTES - 1 characters. */
function jsLine(n) {
  return `const v${String(n).padStart(4, '0')} = f(${n}, ${n % 97});`.padEnd(LINE_BYTES - 1, ' ');
}

/** `count` unique edits of whole lines (line e * 19 mod lines: all distinct), and the texts they lead to. */
function makeEdits(lines, count, lineOf) {
  const edits = [];
  for (let e = 0; e < count; e++) {
    const n = (e * 19) % lines;
    const old = lineOf(n);
    edits.push({ old, new: `${old.trimEnd()} // edited ${e}` });
  }
  return edits;
}

function makeFileText(lines, lineOf) {
  return `${Array.from({ length: lines }, (_, n) => lineOf(n)).join('\n')}\n`;
}

function makeFile(folder, name, lines, lineOf) {
  const text = makeFileText(lines, lineOf);
  writeFileSync(join(folder, name), text);
  return text;
}

/** A fresh temp folder; `remove()` when done (lib's tempDir adds an exit listener per folder: too many here). */
function tempDir(prefix) {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

// --- in process ------------------------------------------------------------------------------------------

/**
 * One round in process: editgate's edits of app.js (read once first, untimed) and the floor's atomic writes
 * of the same successive contents to floor.js, taking turns. Ms per edit on each side.
 */
async function inProcessRound(folder, edits, texts) {
  const tools = createEditTools({ root: folder, approve: 'allow' });
  const read = await tools.execute('read_file', { file_path: 'app.js' });
  if (!read.ok) throw new Error(read.message);
  const target = join(folder, 'floor.js');
  writeFileSync(target, readFileSync(join(folder, 'app.js')));
  collectGarbage();
  let mine = 0;
  let floor = 0;
  const edit = async (e) => {
    const start = performance.now();
    const result = await tools.execute('edit_file', {
      file_path: 'app.js',
      old_string: edits[e].old,
      new_string: edits[e].new,
    });
    mine += performance.now() - start;
    if (!result.ok) throw new Error(result.message);
  };
  // The floor: temp file, write, fsync, close, rename, folder fsync, with node:fs/promises.
  const write = async (e) => {
    const start = performance.now();
    const temp = join(folder, `.floor.js.${process.pid}-${e}.tmp`);
    const handle = await open(temp, 'wx', 0o644);
    await handle.writeFile(texts[e]);
    await handle.sync();
    await handle.close();
    await rename(temp, target);
    const dir = await open(folder, 'r');
    await dir.sync();
    await dir.close();
    floor += performance.now() - start;
  };
  for (let e = 0; e < edits.length; e++) {
    if (e % 2 === 0) {
      await edit(e);
      await write(e);
    } else {
      await write(e);
      await edit(e);
    }
  }
  if (readFileSync(join(folder, 'app.js'), 'utf8') !== texts[edits.length - 1]) {
    throw new Error('in-process edits wrong');
  }
  return { mine: mine / edits.length, floor: floor / edits.length };
}

function textsAfter(text, edits) {
  const texts = [];
  for (const edit of edits) {
    text = text.replace(edit.old, edit.new);
    texts.push(text);
  }
  return texts;
}

// --- over MCP --------------------------------------------------------------------------------------------

function editgateServer(root) {
  return new StdioClientTransport({
    command: process.execPath,
    args: [main, 'mcp', root, '--approve', 'policy', '--log-level', 'error'],
    env: benchEnv(),
    stderr: 'inherit',
  });
}

function referenceServer(root) {
  return new StdioClientTransport({ command: process.execPath, args: [reference, root], stderr: 'ignore' });
}

async function connect(transport) {
  const client = new Client({ name: 'editgate-bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content).slice(0, 500)}`);
  return result;
}

/** spawn -> initialize -> tools/list, ms. */
async function coldStart(make, root) {
  const start = performance.now();
  const transport = make(root);
  const client = await connect(transport);
  const { tools } = await client.listTools();
  const ms = performance.now() - start;
  if (tools.length === 0) throw new Error('no tools listed');
  await client.close();
  return ms;
}

/**
 * One round over MCP: both servers started on their own copy of the same file, editgate's reads done
 * (untimed) as a model must do them, then the edits, the two servers taking turns. Ms and CPU ms per edit
 * and each server's peak RSS; both files must end up the same. `more`: edits made and timed after `edits`
 * on the same servers, reported apart (`later`), so the first edits a fresh server makes (its code still
 * being compiled) can be told from later ones.
 */
async function mcpRound(name, lines, lineOf, edits, texts, more = []) {
  const mine = tempDir('editgate-bench-edits-');
  const theirs = tempDir('editgate-bench-edits-ref-');
  const aside = tempDir('editgate-bench-edits-fsync-');
  const clients = [];
  try {
    await writeTrustedConfig(mine.path, { policy: { rules: [{ action: 'allow' }] } });
    const text = makeFile(mine.path, name, lines, lineOf);
    writeFileSync(join(theirs.path, name), text);
    const mineTransport = editgateServer(mine.path);
    const theirTransport = referenceServer(theirs.path);
    const a = await connect(mineTransport);
    clients.push(a);
    const b = await connect(theirTransport);
    clients.push(b);
    // A file held in memory must be read in full first, page by page (a page ends at the line count asked
    // for or at the server's page size in characters, whichever comes first: each read goes on from the
    // last line the one before showed); a streamed one needs only the part.
    const pageLines = 3000;
    if (lines > pageLines * 200) {
      await call(a, 'read_file', { file_path: name, offset: 1, limit: pageLines });
    } else {
      for (let next = 1; next <= lines; ) {
        const page = await call(a, 'read_file', { file_path: name, offset: next, limit: pageLines });
        next = page._meta['editgate/result'].details.lastLine + 1;
      }
    }
    const path = join(theirs.path, name);
    // What two fsyncs cost now: the atomic write of edit e's bytes with them, less the same without.
    const fsyncCost = async (e) => {
      if (!texts) return 0;
      const withSync = await timedAtomicWrite(aside.path, e, texts[e], true);
      const without = await timedAtomicWrite(aside.path, e, texts[e], false);
      return withSync - without;
    };
    /** The edits of `batch` (edit `first` onwards of the whole sequence), timed; per edit averages. */
    const timedBatch = async (batch, first) => {
      let mineMs = 0;
      let theirMs = 0;
      let fsyncMs = 0;
      const cpuBefore = [cpuMsOf(mineTransport.pid), cpuMsOf(theirTransport.pid)];
      for (const [i, edit] of batch.entries()) {
        const editMine = async () => {
          const start = performance.now();
          await call(a, 'edit_file', { file_path: name, old_string: edit.old, new_string: edit.new });
          mineMs += performance.now() - start;
        };
        const editTheirs = async () => {
          const start = performance.now();
          await call(b, 'edit_file', { path, edits: [{ oldText: edit.old, newText: edit.new }] });
          theirMs += performance.now() - start;
        };
        if ((first + i) % 2 === 0) {
          await editMine();
          await editTheirs();
        } else {
          await editTheirs();
          await editMine();
        }
        fsyncMs += await fsyncCost(first + i);
      }
      const cpuPerEdit = (pid, before) => {
        const after = cpuMsOf(pid);
        return after === undefined || before === undefined ? undefined : (after - before) / batch.length;
      };
      return {
        editgate: { ms: mineMs / batch.length, cpuMs: cpuPerEdit(mineTransport.pid, cpuBefore[0]) },
        reference: { ms: theirMs / batch.length, cpuMs: cpuPerEdit(theirTransport.pid, cpuBefore[1]) },
        fsyncMs: fsyncMs / batch.length,
      };
    };
    const result = await timedBatch(edits, 0);
    const later = more.length > 0 ? await timedBatch(more, edits.length) : undefined;
    if (lines <= 100_000) {
      const left = readFileSync(join(mine.path, name), 'utf8');
      const right = readFileSync(path, 'utf8');
      if (left !== right) throw new Error(`${name}: the two servers wrote different files`);
    }
    result.editgate.peakMb = peakRssOfMb(mineTransport.pid);
    result.reference.peakMb = peakRssOfMb(theirTransport.pid);
    return { ...result, later };
  } finally {
    for (const client of clients) await client.close();
    mine.remove();
    theirs.remove();
    aside.remove();
  }
}

/** Ms to write `text` atomically (temp file, rename) into `folder`, with or without fsync of file and folder. */
async function timedAtomicWrite(folder, e, text, sync) {
  const start = performance.now();
  const temp = join(folder, `.aside.js.${process.pid}-${e}-${sync}.tmp`);
  const handle = await open(temp, 'wx', 0o644);
  await handle.writeFile(text);
  if (sync) await handle.sync();
  await handle.close();
  await rename(temp, join(folder, 'aside.js'));
  if (sync) {
    const dir = await open(folder, 'r');
    await dir.sync();
    await dir.close();
  }
  return performance.now() - start;
}

// --- run -------------------------------------------------------------------------------------------------

const range = (values, format) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted.length === 1
    ? format(sorted[0])
    : `${format(median(sorted))} (${format(sorted[0])}-${format(sorted[sorted.length - 1])})`;
};
const ms2 = (ms) => `${ms.toFixed(2)} ms`;
const ratio = (r) => `${r.toFixed(2)}x`;
const mb = (value) => (value === undefined ? '-' : `${value.toFixed(0)} MB`);

const edits = makeEdits(LINES, EDITS, jsLine);
const rows = [];
const verdicts = [];

// In process.
{
  const folder = tempDir('editgate-bench-edits-inproc-');
  try {
    const text = makeFile(folder.path, 'app.js', LINES, jsLine);
    const texts = textsAfter(text, edits);
    // Warm-up: JIT, caches, the lock folder.
    await inProcessRound(folder.path, edits.slice(0, 30), texts);
    const mine = [];
    const floor = [];
    for (let round = 0; round < ROUNDS; round++) {
      makeFile(folder.path, 'app.js', LINES, jsLine);
      const result = await inProcessRound(folder.path, edits, texts);
      mine.push(result.mine);
      floor.push(result.floor);
    }
    const ratios = mine.map((m, i) => m / floor[i]);
    rows.push([
      'in process, 60 KB file, per edit',
      range(mine, ms2),
      range(floor, ms2),
      'atomic write of the same bytes',
      range(ratios, ratio),
    ]);
    verdicts.push(['in-process edit <= 2x floor', median(ratios) <= 2]);
  } finally {
    folder.remove();
  }
}

// MCP edits on the 60 KB file.
{
  const mine = [];
  const theirs = [];
  const fsyncs = [];
  const cpu = { mine: [], theirs: [] };
  const later = { mine: [], theirs: [] };
  // The timed edits, then as many again on other lines of the same file (`later`, information only).
  const moreEdits = makeEdits(LINES, 2 * EDITS, jsLine).slice(EDITS);
  const texts = textsAfter(makeFileText(LINES, jsLine), [...edits, ...moreEdits]);
  await mcpRound('app.js', LINES, jsLine, edits.slice(0, 20)); // warm-up: disk caches, module compile
  for (let round = 0; round < ROUNDS; round++) {
    const result = await mcpRound('app.js', LINES, jsLine, edits, texts, moreEdits);
    const { editgate, reference: ref, fsyncMs } = result;
    mine.push(editgate.ms);
    theirs.push(ref.ms);
    fsyncs.push(fsyncMs);
    if (editgate.cpuMs !== undefined && ref.cpuMs !== undefined) {
      cpu.mine.push(editgate.cpuMs);
      cpu.theirs.push(ref.cpuMs);
    }
    later.mine.push(result.later.editgate.ms);
    later.theirs.push(result.later.reference.ms);
  }
  /** A row of editgate's ms per edit against the reference's, round by round; `shown`: editgate's cell. */
  const againstReference = (label, ours, reference, shown = range(ours, ms2)) => [
    label,
    shown,
    range(reference, ms2),
    'reference server edit_file',
    range(
      ours.map((m, i) => m / reference[i]),
      ratio,
    ),
  ];
  const ratios = mine.map((m, i) => m / theirs[i]);
  rows.push(againstReference(`MCP edit_file, 60 KB file, per edit (${EDITS})`, mine, theirs));
  // Information: the same, less what two fsyncs cost beside it (the reference makes none). editgate runs
  // part of its work while its fsyncs are under way, so this is a lower bound of its time without them.
  const unsynced = mine.map((m, i) => m - fsyncs[i]);
  rows.push(
    againstReference(
      '  less 2 fsyncs timed beside it (a lower bound)',
      unsynced,
      theirs,
      `${range(unsynced, ms2)}; fsyncs ${range(fsyncs, ms2)}`,
    ),
  );
  // Information: the CPU each server used for the edits (Linux only). On a machine with few cores, time
  // spent waiting on an fsync overlaps other work only while a core is free for it.
  if (cpu.mine.length > 0) {
    rows.push(againstReference('  CPU per edit (user + system, all threads)', cpu.mine, cpu.theirs));
  }
  // Information: the next EDITS edits on the same servers. The timed ones above are a fresh server's
  // first (what a short session gets); by these, both servers' code has been compiled by the engine.
  rows.push(againstReference(`  the next ${EDITS} edits, same servers`, later.mine, later.theirs));
  verdicts.push(['MCP edit <= 1.0x reference', median(ratios) <= 1]);
}

// Cold start.
{
  const root = tempDir('editgate-bench-edits-start-');
  try {
    await writeTrustedConfig(root.path, { policy: { rules: [{ action: 'allow' }] } });
    await coldStart(editgateServer, root.path);
    await coldStart(referenceServer, root.path);
    const mine = [];
    const theirs = [];
    for (let round = 0; round < ROUNDS; round++) {
      const a = [];
      const b = [];
      for (let i = 0; i < STARTS; i++) {
        if ((round + i) % 2 === 0) {
          a.push(await coldStart(editgateServer, root.path));
          b.push(await coldStart(referenceServer, root.path));
        } else {
          b.push(await coldStart(referenceServer, root.path));
          a.push(await coldStart(editgateServer, root.path));
        }
      }
      mine.push(median(a));
      theirs.push(median(b));
    }
    const ratios = mine.map((m, i) => m / theirs[i]);
    rows.push([
      `MCP cold start (spawn, initialize, tools/list; median of ${STARTS})`,
      range(mine, formatMs),
      range(theirs, formatMs),
      'reference server',
      range(ratios, ratio),
    ]);
    verdicts.push(['MCP cold start <= 1.0x reference', median(ratios) <= 1]);
  } finally {
    root.remove();
  }
}

// 5 MB and 50 MB.
if (BIG) {
  const bigLine = (n) =>
    `${String(n).padStart(9, '0')} INSERT INTO log VALUES ('quick brown fox', ${n % 977});`.padEnd(63, ' ');
  for (const [label, bytes, count] of [
    ['5 MB', 5 << 20, 10],
    ['50 MB', 50 << 20, 3],
  ]) {
    const lines = Math.floor(bytes / 64);
    // Spread over the file: edit e at (e + 0.5) / count of the way in.
    const bigEdits = Array.from({ length: count }, (_, e) => {
      const old = bigLine(Math.floor(((e + 0.5) / count) * lines));
      return { old, new: `${old.trimEnd()} -- edited ${e}` };
    });
    const mine = [];
    const theirs = [];
    const memory = { editgate: [], reference: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const { editgate, reference: ref } = await mcpRound('big.sql', lines, bigLine, bigEdits);
      mine.push(editgate.ms);
      theirs.push(ref.ms);
      memory.editgate.push(editgate.peakMb);
      memory.reference.push(ref.peakMb);
    }
    const ratios = mine.map((m, i) => m / theirs[i]);
    rows.push([
      `MCP edit_file, ${label} file, per edit (${count})`,
      range(mine, formatMs),
      range(theirs, formatMs),
      'reference server edit_file',
      range(ratios, ratio),
    ]);
    rows.push([
      `  server peak RSS, ${label}`,
      range(memory.editgate.filter(Boolean), mb),
      range(memory.reference.filter(Boolean), mb),
      'reference server',
      formatRatio(median(memory.editgate.filter(Boolean)), median(memory.reference.filter(Boolean))),
    ]);
    verdicts.push([`${label}: at least 2x ahead of the reference`, median(ratios) <= 0.5]);
  }
}

console.log(`Edits: editgate against an atomic-write floor and the reference MCP filesystem server.`);
console.log(`${ROUNDS} rounds; each cell is the median of the rounds (lowest-highest).\n`);
printTable(['measure', 'editgate', 'reference', 'reference is', 'ratio'], rows);
console.log('');
for (const [target, met] of verdicts) console.log(`${met ? 'met    ' : 'NOT MET'}  ${target}`);
