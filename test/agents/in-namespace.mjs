// Runs a command inside a fresh network namespace (started as `unshare -n node in-namespace.mjs ...`): brings
// the namespace's loopback up, forwards its 127.0.0.1:PORT to the fake model's Unix socket (a Unix socket is a
// file, so it crosses network namespaces; TCP does not), then runs the command and exits with its status.
// Nothing the command does can reach another machine: the namespace has no interface but loopback.
//
//   unshare -n node in-namespace.mjs PORT SOCKET -- COMMAND ARGS...
import { execFileSync, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

const [port, socketPath, separator, command, ...args] = process.argv.slice(2);
if (!port || !socketPath || separator !== '--' || !command) {
  console.error('usage: in-namespace.mjs PORT SOCKET -- COMMAND ARGS...');
  process.exit(2);
}
execFileSync('ip', ['link', 'set', 'lo', 'up']);
const forwarder = createServer((client) => {
  const model = connect(socketPath);
  client.pipe(model).pipe(client);
  client.on('error', () => model.destroy());
  model.on('error', () => client.destroy());
});
forwarder.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(command, args, { stdio: 'inherit' });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => {
    console.error(`in-namespace: ${command}: ${error.message}`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
});
