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

/**
 * `request` as it goes to the client: an elicitation's message labelled, and blank lines in it kept to one
 * (a hundred of them pushed the label off the top of a client's screen, leaving the server's lookalike
 * text alone under it); the words of its form (titles, descriptions, enumNames) made visible as the message
 * is. The form's values stay the server's. Anything else as it is.
 */
export function labelServerQuestion(request: RelayedRequest, server: string): RelayedRequest {
  if (request.method !== 'elicitation/create' || !request.params) return request;
  const message = typeof request.params.message === 'string' ? request.params.message : '';
  const shown = visibleText(message)
    .replace(/^(?:[ \t]*\n)+/, '')
    .replace(/\n(?:[ \t]*\n)+/g, '\n\n');
  const params: Record<string, unknown> = {
    ...request.params,
    message: `${serverQuestionLabel(server)}\n\n${shown}`,
  };
  if (request.params.requestedSchema !== undefined)
    params.requestedSchema = visibleWords(request.params.requestedSchema);
  return { method: request.method, params };
}

/** A form schema with every string a client shows as words (not as a value) made visible. */
function visibleWords(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(visibleWords);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((key === 'title' || key === 'description') && typeof value === 'string')
      out[key] = visibleText(value, { oneLine: true });
    else if (key === 'enumNames' && Array.isArray(value))
      out[key] = value.map((name) =>
        typeof name === 'string' ? visibleText(name, { oneLine: true }) : name,
      );
    else out[key] = key === 'enum' || key === 'const' || key === 'default' ? value : visibleWords(value);
  }
  return out;
}
