// Runs a command inside a fresh network namespace (started as `unshare -n node in-namespace.mjs ...`): brings
// the namespace's loopback up, forwards its 127.0.0.1:PORT to the fake model's Unix socket (a Unix socket is a
// file, so it crosses network namespaces; TCP does not), then runs the command and exits with its status.
// Nothing the command does can reach another machine: the namespace has no interface but loopback.
//
// More PORT SOCKET pairs before the -- forward more ports the same way (a review page outside, for hooks).
//
//   unshare -n node in-namespace.mjs PORT SOCKET [PORT SOCKET]... -- COMMAND ARGS...
import { execFileSync, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

const argv = process.argv.slice(2);
const separator = argv.indexOf('--');
const pairs = separator === -1 ? [] : argv.slice(0, separator);
const [command, ...args] = separator === -1 ? [] : argv.slice(separator + 1);
if (pairs.length === 0 || pairs.length % 2 !== 0 || !command) {
  console.error('usage: in-namespace.mjs PORT SOCKET [PORT SOCKET]... -- COMMAND ARGS...');
  process.exit(2);
}
execFileSync('ip', ['link', 'set', 'lo', 'up']);
const listening = [];
for (let i = 0; i < pairs.length; i += 2) {
  const [port, socketPath] = [pairs[i], pairs[i + 1]];
  const forwarder = createServer((client) => {
    const outside = connect(socketPath);
    client.pipe(outside).pipe(client);
    client.on('error', () => outside.destroy());
    outside.on('error', () => client.destroy());
  });
  listening.push(new Promise((resolve) => forwarder.listen(Number(port), '127.0.0.1', resolve)));
}
Promise.all(listening).then(() => {
  const child = spawn(command, args, { stdio: 'inherit' });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => {
    console.error(`in-namespace: ${command}: ${error.message}`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
});
