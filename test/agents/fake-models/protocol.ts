import type { Reply } from '../../adapters/local-server.js';
import type { ResolvedTurn } from './script.js';

/** One model API as the fake server speaks it: which requests are its, their tools, and the answer to one. */
export interface Protocol {
  name: string;
  /** Whether a POST to this path (query string removed) is this protocol's. */
  handles(path: string): boolean;
  /**
   * Tool names the request offers in a form the text scan cannot see (OpenAI Responses nests an MCP
   * server's tools in a namespace: `mcp__editgate` holding `read_file`).
   */
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are whatever the agent sent.
  nestedToolNames?(body: any): string[];
  /** The reply carrying `turn` (streamed when the request asks for a stream). `id` is unique per request. */
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are whatever the agent sent.
  answer(path: string, body: any, turn: ResolvedTurn, id: string): Reply;
}
