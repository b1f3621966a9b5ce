/**
 * A gate over a workspace built from plain options (roots, deny globs, a state folder): how a front end gets
 * one without reaching under the gate for the guard, history or streamer (the library's tools and the proxy).
 */
import { Guard } from '../workspace/guard.js';
import { History } from '../workspace/history.js';
import { Streamer, type StreamerOptions } from '../workspace/stream/streamer.js';
import { Workspace } from '../workspace/workspace.js';
import { Gate, type GateOptions } from './gate.js';

export interface OpenGateOptions extends Omit<GateOptions, 'workspace'> {
  /** Absolute workspace roots. */
  roots: string[];
  /** Deny globs, beside the ones always refused. */
  deny?: string[];
  /** The roots deny globs and policy rules are written against, when `roots` are narrower. */
  ruleRoots?: string[];
  /** Where undo history and change-set journals are kept (what `editgate undo` reads). */
  stateDir?: string;
  /** When a file is streamed, and how. */
  streamer?: StreamerOptions;
}

export async function openGate(options: OpenGateOptions): Promise<Gate> {
  const { roots, deny, ruleRoots, stateDir, streamer, ...gate } = options;
  const guard = await Guard.create({ roots, deny, ruleRoots });
  const history = new History({ stateDir });
  const workspace = new Workspace({ guard, history, streamer: new Streamer(streamer), stateDir });
  // A change set a killed process left half renamed in these roots is rolled back before anything else,
  // and again before any later read or write while one is found (Workspace.recover).
  await workspace.recover();
  return new Gate({ ...gate, workspace });
}
