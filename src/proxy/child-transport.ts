/**
 * The upstream server as a child process speaking MCP over its stdin and stdout. Like the SDK's stdio client
 * transport, but it keeps what a person needs when the server dies: its exit code or signal and the end of
 * what it wrote to stderr (which is also passed on as it comes), and it gives the child the proxy's whole
 * environment (a wrapped server expects what its client would have given it).
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface ChildSpec {
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Each chunk the child writes to stderr. */
  onStderr?: (text: string) => void;
  /** Largest message accepted from the child, in bytes. */
  maxBufferSize?: number;
}

const TAIL_CHARS = 1500;
const GRACE_MS = 2000;

export class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcessByStdio<Writable, Readable, Readable>;
  private readonly buffer: ReadBuffer;
  private stderrTail = '';
  private exit?: { code: number | null; signal: NodeJS.Signals | null };
  /** Why the command could not be run at all (not found, not executable). */
  private failure?: string;

  constructor(private readonly spec: ChildSpec) {
    this.buffer = new ReadBuffer({ maxBufferSize: spec.maxBufferSize });
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.spec.command, this.spec.args, {
        cwd: this.spec.cwd,
        env: this.spec.env ?? process.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      child.once('error', (error) => {
        this.failure = error.message;
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('close', (code, signal) => {
        this.exit = { code, signal };
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin.on('error', (error) => this.onerror?.(error));
      child.stdout.on('data', (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
          for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage()) {
            this.onmessage?.(message);
          }
        } catch (error) {
          this.onerror?.(error as Error);
        }
      });
      child.stderr.setEncoding('utf8').on('data', (text: string) => {
        this.stderrTail = (this.stderrTail + text).slice(-TAIL_CHARS);
        this.spec.onStderr?.(text);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) {
        reject(new Error('the upstream server is not running'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends the child's input, then asks it to stop, then stops it. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const wait = () =>
      Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, GRACE_MS).unref())]);
    child.stdin.end();
    await wait();
    if (this.child === child) child.kill('SIGTERM');
    await wait();
    if (this.child === child) child.kill('SIGKILL');
    this.buffer.clear();
  }

  /** How the child ended (code or signal, and the end of its stderr); undefined while it runs. */
  describeExit(): string | undefined {
    if (this.failure !== undefined) return `it could not be run (${this.failure})`;
    if (!this.exit) return undefined;
    const how =
      this.exit.signal !== null ? `was stopped by ${this.exit.signal}` : `exited with code ${this.exit.code}`;
    const said = this.stderrTail.trim();
    return said ? `${how}; the end of its error output:\n${said}` : how;
  }
}
