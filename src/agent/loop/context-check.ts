import type { ModelMessage } from 'ai';
import type { ModelTarget } from '../providers/model-target.js';
import type { AgentTool } from '../tools/agent-tool.js';

/**
 * A local server whose context window is smaller than the conversation does not always fail: Ollama, by
 * default, silently keeps only the end of the prompt (its default window is a few thousand tokens), and the
 * model then forgets the tools, the files it read, even the question. The sign is a prompt token count far
 * below what was sent. Characters / 4 is a rough count of tokens for code and English; the warning needs
 * the server's count to be under half of it, well outside that roughness.
 */
const messageChars = new WeakMap<ModelMessage, number>();

export function estimateTokens(
  system: string,
  messages: readonly ModelMessage[],
  tools: readonly AgentTool[],
): number {
  let chars = system.length;
  for (const message of messages) {
    // A message never changes once in the conversation: each is measured once, not once per request.
    let length = messageChars.get(message);
    if (length === undefined) {
      length = JSON.stringify(message.content).length;
      messageChars.set(message, length);
    }
    chars += length;
  }
  for (const tool of tools) chars += tool.description.length + JSON.stringify(tool.inputSchema).length;
  return Math.round(chars / 4);
}

export function truncationWarning(
  reported: number,
  estimate: number,
  target: ModelTarget,
): string | undefined {
  if (estimate < 2000 || reported >= estimate / 2) return undefined;
  const fix =
    target.provider === 'ollama'
      ? ' Raise it: start the server with OLLAMA_CONTEXT_LENGTH=32768 ollama serve (or set num_ctx in a Modelfile).'
      : " Raise the context length in the server settings (for llama.cpp: -c 32768; for LM Studio: the model's context length).";
  return `${target.baseURL} counted ${reported} prompt tokens for a conversation of about ${estimate}: it probably cut the conversation to fit a small context window, and the model no longer sees all of it.${fix}`;
}
