// editgate chat, measured in a real pseudo-terminal (node-pty) against a local model server speaking OpenAI
// Chat Completions streaming, with references measured in the same run. Targets (issue #17):
//   1. start-up to the input prompt: at most 3x `node -e ""` (both spawned in the same pty setup);
//   2. a 200 KB reply streamed at full speed: the transcript's total time at most 1.5x a process writing the
//      same text, in the same pieces, to the same kind of terminal; and no more than one frame per 16 ms;
//   3. a scripted 300-turn session with 300 edits: peak RSS under 250 MB, and the last 50 turns within 1.2x
//      the first 50.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from '@lydell/node-pty';
import {
  formatMs,
  formatRatio,
  median,
  peakRssOfMb,
  printTable,
  tempDir,
  writeTrustedConfig,
} from './lib.mjs';

const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const STARTUP_RUNS = 15;
const STREAM_RUNS = 5;
const REPLY_BYTES = 200 * 1024;
const PIECE = 64;
const TURNS = 300;
const PROMPT_READY = 'Ctrl-J new line';

/** A Chat Completions server answering the n-th request with replies(n): { text } or { edit }. */
async function modelServer(reply) {
  let count = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const answer = reply(count++);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta, finish = null) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      let out = chunk({ role: 'assistant', content: '' });
      for (const piece of answer.pieces ?? []) out += chunk({ content: piece });
      if (answer.call) {
        out += chunk({
          tool_calls: [
            {
              index: 0,
              id: `call_${count}`,
              type: 'function',
              function: { name: answer.call.name, arguments: JSON.stringify(answer.call.input) },
            },
          ],
        });
      }
      out += chunk({}, answer.call ? 'tool_calls' : 'stop');
      out += `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 100000, completion_tokens: 10, total_tokens: 100010 } })}\n\n`;
      response.end(`${out}data: [DONE]\n\n`);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseURL: `http://127.0.0.1:${server.address().port}/v1` };
}

function environment(dir) {
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: join(dir, 'config'),
    EDITGATE_STATE_DIR: join(dir, 'state'),
  };
  for (const name of ['FORCE_COLOR', 'NO_COLOR', 'CI']) delete env[name];
  return { ...env, TERM: 'xterm-256color', COLORTERM: 'truecolor' };
}

/** A process in a pty; `until(text)` resolves with the ms since spawn when the output first contains text. */
function spawnPty(file, args, { cwd, env, cols = 120, rows = 40 }) {
  const start = performance.now();
  const child = pty.spawn(file, args, { cols, rows, cwd, env, name: 'xterm-256color' });
  let raw = '';
  const waiters = [];
  const chunks = [];
  child.onData((data) => {
    raw += data;
    chunks.push({ at: performance.now(), data });
    for (const waiter of [...waiters]) {
      if (raw.includes(waiter.text, waiter.from)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(performance.now());
      }
    }
  });
  const exit = new Promise((resolve) => child.onExit(resolve));
  return {
    child,
    start,
    exit,
    chunks,
    raw: () => raw,
    /** Resolves with the time (performance.now) the output contains `text` after position `from`. */
    until(text, from = 0, timeout = 60_000) {
      if (raw.includes(text, from)) return Promise.resolve(performance.now());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const tail = JSON.stringify(raw.slice(-400));
          reject(
            new Error(
              `${file} ${args.join(' ')}: timed out waiting for ${JSON.stringify(text)}; output ends ${tail}`,
            ),
          );
        }, timeout);
        waiters.push({
          text,
          from,
          resolve: (at) => {
            clearTimeout(timer);
            resolve(at);
          },
        });
      });
    },
  };
}

function chatArgs(baseURL, extra = []) {
  return [main, 'chat', '--model', 'openai-compatible/bench', '--base-url', baseURL, ...extra];
}

async function startup(dir) {
  const env = environment(dir);
  const cwd = join(dir, 'root');
  const node = [];
  const chat = [];
  for (let round = -2; round < STARTUP_RUNS; round++) {
    const reference = spawnPty(process.execPath, ['-e', ''], { cwd, env });
    await reference.exit;
    const nodeMs = performance.now() - reference.start;
    const run = spawnPty(process.execPath, chatArgs('http://127.0.0.1:9/v1'), { cwd, env });
    const ready = await run.until(PROMPT_READY);
    run.child.write('\x04');
    await run.exit;
    if (round >= 0) {
      node.push(nodeMs);
      chat.push(ready - run.start);
    }
  }
  return { node: median(node), chat: median(chat), nodeRange: range(node), chatRange: range(chat) };
}

function range(values) {
  return `${formatMs(Math.min(...values))}-${formatMs(Math.max(...values))}`;
}

/** The 200 KB reply: lines of prose of varied length, ending with a marker. */
function replyText() {
  const words = [
    'edit',
    'the',
    'diff',
    'before',
    'approval',
    'file',
    'gate',
    'terminal',
    'stream',
    'model',
    'token',
    'scrollback',
  ];
  let text = '';
  let i = 0;
  while (text.length < REPLY_BYTES) {
    const n = 5 + (i % 17);
    text += `${Array.from({ length: n }, (_, k) => words[(i * 7 + k) % words.length]).join(' ')}${i % 9 === 0 ? '\n\n' : '\n'}`;
    i++;
  }
  return `${text}END-OF-REPLY\n`;
}

function pieces(text) {
  const out = [];
  for (let i = 0; i < text.length; i += PIECE) out.push(text.slice(i, i + PIECE));
  return out;
}

async function streaming(dir) {
  const text = replyText();
  const parts = pieces(text);
  const { server, baseURL } = await modelServer(() => ({ pieces: parts }));
  const env = environment(dir);
  const cwd = join(dir, 'root');
  // The reference: a process that, on Enter, writes the same pieces to the terminal as fast as it can.
  const writer = join(dir, 'writer.mjs');
  writeFileSync(
    writer,
    `const parts = ${JSON.stringify(parts)};
process.stdin.setRawMode(true);
process.stdout.write('ready\\n');
process.stdin.once('data', async () => {
  for (const part of parts) if (!process.stdout.write(part)) await new Promise((r) => process.stdout.once('drain', r));
  // Exit on the next key, once the bench has seen everything: a process that exits at once can lose output
  // the pty has not passed on yet.
  process.stdin.once('data', () => process.exit(0));
});
`,
  );
  // The transcript alone: the chat's own screen fed the same pieces as turn events (no HTTP, no provider),
  // in bursts of 16 pieces (1 KB) per turn of the event loop: a provider hands the transcript every chunk of
  // one socket read before yielding, and a read from a server streaming at full speed holds far more.
  const driver = join(dir, 'transcript-driver.mjs');
  writeFileSync(
    driver,
    `import { ChatApp } from ${JSON.stringify(new URL('../dist/agent/repl/chat-app.js', import.meta.url).href)};
const parts = ${JSON.stringify(parts)};
const app = new ChatApp({ input: process.stdin, output: process.stdout, modelLabel: 'bench', history: [] });
const exited = app.start();
process.stdin.once('data', async () => {
  const events = app.turnEvents();
  for (let i = 0; i < parts.length; i++) {
    events.textDelta(parts[i]);
    if (i % 16 === 15) await new Promise((resolve) => setImmediate(resolve));
  }
  // Everything goes out now; the driver exits on the next key (see the writer).
  app.screen.flush();
  process.stdin.once('data', () => app.exit(0));
});
await exited;
`,
  );
  const direct = [];
  const chat = [];
  const transcript = [];
  const frames = [];
  for (let round = -1; round < STREAM_RUNS; round++) {
    const reference = spawnPty(process.execPath, [writer], { cwd, env });
    await reference.until('ready');
    const from = reference.raw().length;
    const t0 = performance.now();
    reference.child.write('\r');
    const t1 = await reference.until('END-OF-REPLY', from);
    reference.child.write('q');
    await reference.exit;

    const alone = spawnPty(process.execPath, [driver], { cwd, env });
    await alone.until(PROMPT_READY);
    const start = alone.raw().length;
    const a0 = performance.now();
    alone.child.write('\r');
    const a1 = await alone.until('END-OF-REPLY', start);
    const aloneFrames = alone.raw().slice(start).split('\x1b[?2026h').length - 1;
    alone.child.write('q');
    await alone.exit;

    const run = spawnPty(process.execPath, chatArgs(baseURL), { cwd, env });
    await run.until(PROMPT_READY);
    const mark = run.raw().length;
    const c0 = performance.now();
    run.child.write('go\r');
    const c1 = await run.until('END-OF-REPLY', mark);
    const frameStarts = run.raw().slice(mark).split('\x1b[?2026h').length - 1;
    run.child.write('\x04');
    await run.exit;
    if (round >= 0) {
      direct.push(t1 - t0);
      chat.push(c1 - c0);
      transcript.push(a1 - a0);
      frames.push({ frames: frameStarts, ms: c1 - c0 }, { frames: aloneFrames, ms: a1 - a0 });
    }
  }
  server.close();
  return {
    direct: median(direct),
    chat: median(chat),
    transcript: median(transcript),
    directRange: range(direct),
    chatRange: range(chat),
    transcriptRange: range(transcript),
    frames,
  };
}

async function longSession(dir) {
  const root = join(dir, 'long');
  mkdirSync(root, { recursive: true });
  const FILES = 20;
  for (let f = 0; f < FILES; f++) {
    writeFileSync(
      join(root, `m${f}.ts`),
      Array.from({ length: 200 }, (_, i) => `export const v${f}_${i} = ${i};`).join('\n') + '\n',
    );
  }
  // Edits without a read first: the bench measures the chat, not the model re-reading files.
  await writeTrustedConfig(root, { requireReadBeforeEdit: false }, join(dir, 'state'));
  const { server, baseURL } = await modelServer((n) => {
    const turn = Math.floor(n / 2);
    if (n % 2 === 0) {
      const f = turn % FILES;
      const line = Math.floor(turn / FILES);
      return {
        pieces: [`Turn ${turn}: editing m${f}.ts. `],
        call: {
          name: 'edit_file',
          input: {
            file_path: `m${f}.ts`,
            old_string: `export const v${f}_${line} = ${line};`,
            new_string: `export const v${f}_${line} = ${line * 10};`,
          },
        },
      };
    }
    return { pieces: [`done ${turn}.`] };
  });
  const run = spawnPty(process.execPath, chatArgs(baseURL, ['--yes']), { cwd: root, env: environment(dir) });
  await run.until(PROMPT_READY);
  const times = [];
  const cpu = [cpuMs(run.child.pid)];
  for (let turn = 0; turn < TURNS; turn++) {
    const mark = run.raw().length;
    const t0 = performance.now();
    run.child.write(`turn ${turn}\r`);
    await run.until(`done ${turn}.`, mark);
    // The turn is over when the prompt is idle again.
    await run.until(PROMPT_READY, mark);
    times.push(performance.now() - t0);
    cpu.push(cpuMs(run.child.pid));
  }
  const peak = peakRssOfMb(run.child.pid);
  run.child.write('\x04');
  await run.exit;
  server.close();
  const first = median(times.slice(0, 50));
  const last = median(times.slice(-50));
  // CPU time the chat process spent on its first 50 turns and on its last 50: what the turns cost it,
  // whatever else the machine is doing (wall time on a shared machine drifts with the load).
  const cpuFirst = cpu[50] - cpu[0];
  const cpuLast = cpu[TURNS] - cpu[TURNS - 50];
  return { peak, first, last, cpuFirst, cpuLast };
}

/** User + system CPU time of a process so far, in ms (/proc/<pid>/stat, Linux; clock ticks of 10 ms). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const dir = tempDir('editgate-bench-chat-');
try {
  mkdirSync(join(dir.path, 'root'));
  mkdirSync(join(dir.path, 'config'));
  console.log(
    `Node ${process.version}; editgate chat in a ${120}x${40} pty (node-pty), model server on 127.0.0.1.\n`,
  );

  const s = await startup(dir.path);
  const startupRatio = s.chat / s.node;
  const r = await streaming(dir.path);
  const streamRatio = r.transcript / r.direct;
  const minFrameMs = Math.min(...r.frames.map((f) => f.ms / Math.max(1, f.frames)));
  const maxFrames = Math.max(...r.frames.map((f) => f.frames));
  const l = await longSession(dir.path);
  const slowdown = l.cpuLast / l.cpuFirst;

  printTable(
    ['measure', 'editgate chat', 'reference', 'ratio', 'target', 'met'],
    [
      [
        'start-up to the input prompt (median)',
        `${formatMs(s.chat)} (${s.chatRange})`,
        `node -e "": ${formatMs(s.node)} (${s.nodeRange})`,
        formatRatio(s.chat, s.node),
        '<=3x',
        startupRatio <= 3 ? 'met' : 'MISSED',
      ],
      [
        `200 KB reply, ${PIECE}-byte pieces: the transcript`,
        `${formatMs(r.transcript)} (${r.transcriptRange})`,
        `written directly: ${formatMs(r.direct)} (${r.directRange})`,
        formatRatio(r.transcript, r.direct),
        '<=1.5x',
        streamRatio <= 1.5 ? 'met' : 'MISSED',
      ],
      [
        '  the same from the model server, end to end',
        `${formatMs(r.chat)} (${r.chatRange})`,
        `written directly: ${formatMs(r.direct)}`,
        formatRatio(r.chat, r.direct),
        '(info)',
        '',
      ],
      [
        'frames while streaming',
        `${maxFrames} at most, one per ${minFrameMs.toFixed(1)} ms or more on average`,
        'one per 16 ms',
        '-',
        '>=16 ms',
        minFrameMs >= 16 ? 'met' : 'MISSED',
      ],
      [
        `${TURNS} turns, ${TURNS} edits: peak RSS`,
        l.peak === undefined ? '-' : `${l.peak.toFixed(0)} MB`,
        '250 MB',
        '-',
        '<250 MB',
        l.peak !== undefined && l.peak < 250 ? 'met' : 'MISSED',
      ],
      [
        '  CPU time of the chat, last 50 turns / first 50',
        `${formatMs(l.cpuLast)} / ${formatMs(l.cpuFirst)}`,
        'first 50 turns',
        formatRatio(l.cpuLast, l.cpuFirst),
        '<=1.2x',
        slowdown <= 1.2 ? 'met' : 'MISSED',
      ],
      [
        '  median turn (wall time), last 50 / first 50',
        `${formatMs(l.last)} / ${formatMs(l.first)}`,
        'first 50 turns',
        formatRatio(l.last, l.first),
        '(info)',
        '',
      ],
    ],
  );
} finally {
  dir.remove();
}
