import type { Readable, Writable } from 'node:stream';

/**
 * JSON-RPC 2.0 as the Language Server Protocol frames it (`Content-Length: N\r\n\r\n` then N bytes of JSON),
 * over a server's stdin and stdout. Only what editgate's diagnostics need: requests and notifications both
 * ways, nothing else. What the server sends is data from a program editgate does not control: a message too
 * large, or not JSON-RPC, ends the connection rather than being guessed at.
 */

/** The most one message may hold: a server's diagnostics for one file are far below this. */
export const MOST_MESSAGE_BYTES = 16 * 1024 * 1024;

/** JSON-RPC's "method not found": what editgate answers a server's request it does not serve. */
export const METHOD_NOT_FOUND = -32601;

export class LspRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** How editgate answers a request the server sends it: a result, or an LspRequestError thrown. */
export type ServerRequestHandler = (method: string, params: unknown) => unknown;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export class LspConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<(params: unknown) => void>>();
  private ended: Error | undefined;

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly onServerRequest: ServerRequestHandler,
  ) {
    input.on('data', (chunk: Buffer) => this.receive(chunk));
    input.on('end', () => this.end(new Error('the server closed its output')));
    input.on('error', (error) => this.end(error));
    output.on('error', (error) => this.end(error));
  }

  /** Why the connection ended, once it has: every pending and later request fails with it. */
  get closedBecause(): Error | undefined {
    return this.ended;
  }

  request<T>(method: string, params: unknown, signal?: AbortSignal): Promise<T> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(id);
        // The server may stop work on it; an answer that comes anyway is dropped.
        this.notify('$/cancelRequest', { id });
        reject(signal!.reason instanceof Error ? signal!.reason : new Error('cancelled'));
      };
      this.pending.set(id, {
        resolve: (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value as T);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    if (!this.ended) this.send({ jsonrpc: '2.0', method, params });
  }

  /** Calls `listener` with the params of every notification `method` the server sends; returns the off switch. */
  onNotification(method: string, listener: (params: unknown) => void): () => void {
    let set = this.listeners.get(method);
    if (!set) this.listeners.set(method, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Ends the connection: pending requests fail with `reason`. */
  end(reason: Error): void {
    if (this.ended) return;
    this.ended = reason;
    for (const pending of this.pending.values()) pending.reject(reason);
    this.pending.clear();
  }

  private send(message: object): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    this.output.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]));
  }

  private receive(chunk: Buffer): void {
    if (this.ended) return;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd === -1) {
        if (this.buffer.length > 4096) this.end(new Error('the server sent a header without an end'));
        return;
      }
      const header = this.buffer.subarray(0, headerEnd).toString('ascii');
      const length = /^content-length: *(\d+) *$/im.exec(header)?.[1];
      if (length === undefined) {
        this.end(new Error('the server sent a message without Content-Length'));
        return;
      }
      const size = Number(length);
      if (size > MOST_MESSAGE_BYTES) {
        this.end(new Error(`the server sent a message of ${size} bytes, more than editgate reads`));
        return;
      }
      const start = headerEnd + 4;
      if (this.buffer.length < start + size) return;
      const body = this.buffer.subarray(start, start + size).toString('utf8');
      this.buffer = this.buffer.subarray(start + size);
      let message: unknown;
      try {
        message = JSON.parse(body);
      } catch {
        this.end(new Error('the server sent a message that is not JSON'));
        return;
      }
      this.dispatch(message);
    }
  }

  private dispatch(message: unknown): void {
    if (typeof message !== 'object' || message === null) return;
    const { id, method, params, result, error } = message as {
      id?: unknown;
      method?: unknown;
      params?: unknown;
      result?: unknown;
      error?: { code?: unknown; message?: unknown };
    };
    if (typeof method === 'string') {
      if (id === undefined) {
        for (const listener of this.listeners.get(method) ?? []) listener(params);
        return;
      }
      void this.answer(id, method, params);
      return;
    }
    if (typeof id !== 'number') return;
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (error && typeof error === 'object')
      pending.reject(
        new LspRequestError(
          typeof error.code === 'number' ? error.code : 0,
          typeof error.message === 'string' ? error.message : 'the server answered with an error',
        ),
      );
    else pending.resolve(result ?? null);
  }

  private async answer(id: unknown, method: string, params: unknown): Promise<void> {
    try {
      const result = await this.onServerRequest(method, params);
      this.send({ jsonrpc: '2.0', id, result: result ?? null });
    } catch (error) {
      const code = error instanceof LspRequestError ? error.code : -32603;
      this.send({
        jsonrpc: '2.0',
        id,
        error: { code, message: error instanceof Error ? error.message : String(error) },
      });
    }
  }
}
