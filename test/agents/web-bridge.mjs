// Runs an editgate command that serves a review page (--approve web) inside the agent's network namespace,
// and lets the test reach that page from outside: passes stdin and stdout through (the MCP stream), copies
// stderr, and once the page's sign-in link appears there, serves a Unix socket (a file, so it crosses
// network namespaces) that forwards to the page's port inside, then writes the link to LINKFILE.
//
//   node web-bridge.mjs LINKFILE SOCKET -- COMMAND ARGS...
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

const [linkFile, socketPath, separator, command, ...args] = process.argv.slice(2);
if (!linkFile || !socketPath || separator !== '--' || !command) {
  console.error('usage: web-bridge.mjs LINKFILE SOCKET -- COMMAND ARGS...');
  process.exit(2);
}
const LINK = /http:\/\/127\.0\.0\.1:(\d+)\/\?token=[A-Za-z0-9_-]{43}/;
const child = spawn(command, args, { stdio: ['inherit', 'inherit', 'pipe'] });
let seen = '';
let bridged = false;
child.stderr.on('data', (chunk) => {
  process.stderr.write(chunk);
  if (bridged) return;
  seen += chunk.toString('utf8');
  const match = LINK.exec(seen);
  if (!match) return;
  bridged = true;
  const port = Number(match[1]);
  const server = createServer((outside) => {
    const page = connect(port, '127.0.0.1');
    outside.pipe(page).pipe(outside);
    outside.on('error', () => page.destroy());
    page.on('error', () => outside.destroy());
  });
  server.unref();
  server.listen(socketPath, () => writeFileSync(linkFile, match[0]));
});
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
