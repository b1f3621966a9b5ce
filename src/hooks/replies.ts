/**
 * The answers every adapter words the same way, whatever the agent: a tool editgate does not gate is passed
 * with one reason, a JSON answer is one line on standard output, and saying nothing is an empty one.
 */
import type { HookEvent, HookReply } from './adapter.js';

/** No answer: the agent's own rules decide. */
export const NO_REPLY: HookReply = { stdout: '', exitCode: 0 };

/** A JSON answer on standard output, exit code 0. */
export function jsonReply(body: unknown): HookReply {
  return { stdout: `${JSON.stringify(body)}\n`, exitCode: 0 };
}

/** The event of a tool that does not write files editgate gates: passed, before it runs and after. */
export function notGated(phase: 'pre' | 'post', cwd: string, tool: string): HookEvent {
  return phase === 'pre'
    ? { phase: 'pre', cwd, read: { kind: 'pass', why: `${tool} does not write files editgate gates` } }
    : { phase: 'post', cwd, read: { kind: 'pass' } };
}
