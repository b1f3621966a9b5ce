import type { ModelTarget } from './model-target.js';

/**
 * What went wrong talking to a model, as one clear sentence that names the URL or the variable to fix,
 * instead of a stack trace. Works on the AI SDK's errors by their fields (statusCode, responseBody, cause),
 * so this module does not import the SDK.
 */
export function describeModelError(error: unknown, target: ModelTarget): string {
  const failure = unwrapRetry(error);
  const url = target.baseURL ?? 'the API';
  const network = networkCode(failure);
  if (network) {
    const why =
      network === 'ECONNREFUSED'
        ? 'connection refused'
        : network === 'ENOTFOUND' || network === 'EAI_AGAIN'
          ? 'host not found'
          : network === 'ETIMEDOUT' || network === 'UND_ERR_CONNECT_TIMEOUT'
            ? 'timed out'
            : network;
    const hint =
      target.startHint ??
      (target.local ? 'Is the server running? Check --base-url.' : 'Check your network connection.');
    return `Cannot reach the model server at ${url} (${why}). ${hint}`;
  }
  const status = field<number>(failure, 'statusCode');
  const body = String(field<string>(failure, 'responseBody') ?? '');
  const said = serverMessage(body) ?? messageOf(failure);
  if (status === 401 || status === 403) {
    return target.keyVariable
      ? `${target.provider} refused the key in ${target.keyVariable} (HTTP ${status}): ${said}. Check that variable holds a valid key.`
      : `${url} refused the request (HTTP ${status}): ${said}. If the server needs a key, name its variable with --api-key-env NAME.`;
  }
  if (status === 404 && /model/i.test(said)) {
    return `${url} has no model "${target.modelId}" (${said}). Type /model to list the models it has.`;
  }
  if (isContextOverflow(said)) {
    return `The conversation is longer than ${target.label} can take (${said}). Type /compact to summarise it, or /clear to start over.`;
  }
  if (status !== undefined) return `${target.label} failed (HTTP ${status} from ${url}): ${said}`;
  return `${target.label} failed: ${said}`;
}

export function isContextOverflow(text: string): boolean {
  return /context[ _-]?(length|window)|maximum context|too many tokens|prompt is too long|exceeds? the (model's )?(max|context)/i.test(
    text,
  );
}

export function isAbortError(error: unknown): boolean {
  const name = field<string>(error, 'name');
  return (
    name === 'AbortError' ||
    name === 'ResponseAborted' ||
    (error instanceof DOMException && error.name === 'AbortError')
  );
}

function unwrapRetry(error: unknown): unknown {
  // RetryError keeps the last attempt's error.
  return field(error, 'lastError') ?? error;
}

function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 6; depth++) {
    const code = field<string>(current, 'code');
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_\w+)$/.test(code) && code !== 'ERR_INVALID_ARG_TYPE')
      return code;
    const errors = field<unknown[]>(current, 'errors');
    if (Array.isArray(errors) && errors.length > 0) {
      const inner = networkCode(errors[0]);
      if (inner) return inner;
    }
    current = field(current, 'cause');
  }
  return undefined;
}

function serverMessage(body: string): string | undefined {
  if (!body) return undefined;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
    if (typeof parsed.error?.message === 'string') return parsed.error.message;
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // Not JSON: the text itself, shortened.
  }
  return body.trim().slice(0, 300) || undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function field<T>(value: unknown, name: string): T | undefined {
  return value !== null && typeof value === 'object' && name in value
    ? ((value as Record<string, unknown>)[name] as T)
    : undefined;
}
