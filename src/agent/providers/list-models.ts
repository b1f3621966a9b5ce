import type { ModelTarget } from './model-target.js';
import { describeModelError } from './provider-errors.js';

/**
 * The models a provider offers (`GET {baseURL}/models`: OpenAI, every OpenAI-compatible server, and
 * Anthropic's Models API), for /model. Throws an Error with a clear message when the server cannot say.
 */
export async function listModels(target: ModelTarget, fetchImpl: typeof fetch = fetch): Promise<string[]> {
  const base =
    target.baseURL ??
    (target.family === 'anthropic' ? 'https://api.anthropic.com/v1' : 'https://api.openai.com/v1');
  const headers: Record<string, string> = {};
  if (target.family === 'anthropic') {
    if (target.apiKey) headers['x-api-key'] = target.apiKey;
    headers['anthropic-version'] = '2023-06-01';
  } else if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  let response: Response;
  try {
    response = await fetchImpl(`${base}/models`, { headers, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw new Error(describeModelError(error, target));
  }
  const text = await response.text();
  if (!response.ok) {
    throw new Error(
      describeModelError(
        { statusCode: response.status, responseBody: text, message: response.statusText },
        target,
      ),
    );
  }
  let parsed: { data?: { id?: unknown }[]; models?: { name?: unknown; model?: unknown }[] };
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${base}/models did not answer with JSON.`);
  }
  const ids = (parsed.data ?? [])
    .map((entry) => entry.id)
    .filter((id): id is string => typeof id === 'string');
  return ids.sort((a, b) => a.localeCompare(b));
}
