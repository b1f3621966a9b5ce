/**
 * The upstream server's own questions (its elicitation requests), relayed to the client. A client shows
 * them in the same form as editgate's questions about writes, so a server could ask "Allow once?" in
 * editgate's words and have the person answer what they take for editgate. Every such question is labelled
 * as the server's, always, and its text made visible (control and invisible characters spelled out).
 */
import type { RelayedRequest } from './relay.js';
import { visibleText } from './visible-text.js';

/** The label that starts every question of the server's; the server's own text follows it. */
export function serverQuestionLabel(server: string): string {
  return `Question from the ${visibleText(server, { oneLine: true })} server, not from editgate:`;
}

/** `request` as it goes to the client: an elicitation's message labelled; anything else as it is. */
export function labelServerQuestion(request: RelayedRequest, server: string): RelayedRequest {
  if (request.method !== 'elicitation/create' || !request.params) return request;
  const message = typeof request.params.message === 'string' ? request.params.message : '';
  return {
    method: request.method,
    params: { ...request.params, message: `${serverQuestionLabel(server)}\n\n${visibleText(message)}` },
  };
}
