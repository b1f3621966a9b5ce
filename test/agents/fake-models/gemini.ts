import type { Protocol } from './protocol.js';
import { pieces, type ResolvedTurn } from './script.js';

/**
 * Gemini generateContent and streamGenerateContent (POST .../models/MODEL:streamGenerateContent?alt=sse), as
 * Gemini CLI calls it; countTokens gets a plain count.
 */
export const gemini: Protocol = {
  name: 'Gemini generateContent',
  handles: (path) => /:(stream)?[gG]enerateContent$|:countTokens$/.test(path),
  answer(path, _body, turn) {
    if (path.endsWith(':countTokens')) return { json: { totalTokens: 1000 } };
    const chunks = candidates(turn);
    if (path.endsWith(':generateContent')) {
      // One answer: all parts together.
      const parts = chunks.flatMap((chunk) => chunk.parts);
      return { json: { ...chunkOf(parts, 'STOP'), modelVersion: 'fake-model' } };
    }
    return {
      sse: chunks.map((chunk, n) => ({
        data: chunkOf(chunk.parts, n === chunks.length - 1 ? 'STOP' : undefined),
      })),
    };
  },
};

function candidates(turn: ResolvedTurn): { parts: Record<string, unknown>[] }[] {
  const chunks: { parts: Record<string, unknown>[] }[] = pieces(turn.text ?? '').map((text) => ({
    parts: [{ text }],
  }));
  for (const call of turn.calls ?? [])
    chunks.push({ parts: [{ functionCall: { id: call.id, name: call.name, args: call.input } }] });
  return chunks.length > 0 ? chunks : [{ parts: [{ text: '' }] }];
}

function chunkOf(parts: Record<string, unknown>[], finishReason: string | undefined) {
  return {
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    usageMetadata: { promptTokenCount: 1000, candidatesTokenCount: 10, totalTokenCount: 1010 },
    modelVersion: 'fake-model',
  };
}
