import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { LanguageServerSpec } from './language-server-config.js';
import { LspConnection, LspRequestError, METHOD_NOT_FOUND } from './lsp-connection.js';

/**
 * One configured language server running for one workspace root (issue #32), as editgate's diagnostics
 * need it: a file's proposed text is given to it without a write, and what it reports is read back.
 *
 * A text is checked by opening the real path with that text (`didOpen`), reading the diagnostics, and
 * closing it again (`didClose`), so the server's view goes back to the file on disk, whatever becomes of
 * the change. Reopening rather than `didChange` is deliberate: a server that reports only when its
 * diagnostics change (typescript-language-server says nothing when a clean file stays clean) would leave
 * nothing to wait for, while a fresh open is always reported. The diagnostics are read the most exact way
 * the server offers (HOW_READ): pulled (`textDocument/diagnostic`, LSP 3.17), which answers for exactly that
 * text (pyright); asked of tsserver through typescript-language-server's `typescript.tsserverRequest`
 * command, which answers at once where its own pushes wait 300 ms and more; or, from a server that only
 * pushes them, the last `publishDiagnostics` for the file once it has been quiet a while (settleMs).
 *
 * The server is a program the person chose and trusted, but what it says is data: it is never let edit a
 * file (`workspace/applyEdit` is refused), its messages reach screens only through the findings' words,
 * and a server that stops, hangs or talks nonsense gives a one-line reason, never a failed change.
 */

/** A diagnostic as the protocol carries it (the parts editgate reads). */
export interface LspDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  /** 1 error, 2 warning, 3 information, 4 hint. */
  severity?: number;
  code?: string | number;
  source?: string;
  message: string;
}

/**
 * How a server's diagnostics for one text are read: 'pull' (it answers a request for them), 'tsserver'
 * (typescript-language-server passes tsserver's own synchronous diagnostics requests on), 'push' (it sends
 * them when it likes; the last one counts once it has been quiet a while).
 */
export type HowRead = 'pull' | 'tsserver' | 'push';

/**
 * Quiet after a push before the pushed diagnostics count as the server's word on the text, at least: a
 * server that was slow to push first is given half that time again (up to MOST_SETTLE_MS), since a busy
 * server pushes its slower kinds of diagnostic (types after syntax) further apart.
 */
export const SETTLE_MS = 200;
const MOST_SETTLE_MS = 1000;
/** The command of typescript-language-server that passes a request on to tsserver. */
const TSSERVER_REQUEST = 'typescript.tsserverRequest';
/** How long `initialize` may take before the server is given up on. */
const INITIALIZE_MS = 60_000;
/** How long a server is given to answer `shutdown`, then to exit, before it is stopped by a signal. */
const SHUTDOWN_MS = 2000;
/** Characters of the server's stderr kept, for the reason it stopped. */
const STDERR_KEPT = 2000;

/** Why a server is not there to ask: one line for a person. */
export class LanguageServerStopped extends Error {}

export class LanguageServer {
  /** Settles when the server has answered `initialize`; rejects (LanguageServerStopped) if it never will. */
  readonly ready: Promise<void>;
  private readonly child: ChildProcess;
  private readonly connection: LspConnection;
  private stopped: LanguageServerStopped | undefined;
  private exited = false;
  private initialized = false;
  private stderr = '';
  /** What the server offered at `initialize`: diagnostics pulled, or tsserver's asked. */
  private offered: HowRead = 'push';
  /** Its registrations of `textDocument/diagnostic` made since (pyright offers pulling only so). */
  private readonly pullRegistrations = new Set<string>();
  /** Resolves when the server first offers to be pulled: a push awaited until then is pulled instead. */
  private readonly pullOffered: Promise<void>;
  private offerPull: () => void = () => {};
  private version = 0;
  private turn: Promise<unknown> = Promise.resolve();
  /** The diagnostics of the text last checked, for a next change that starts from that text. */
  private last: { path: string; text: string; diagnostics: LspDiagnostic[] } | undefined;
  /** Files checked before, which a write since may have changed on disk (told to the server). */
  private readonly touched = new Set<string>();
  private readonly onStop = new Set<(server: LanguageServer) => void>();
  /** Rejects (LanguageServerStopped) when the server stops: what waits on its pushes waits no longer. */
  private readonly gone: Promise<never>;
  private markGone: (reason: Error) => void = () => {};

  constructor(
    readonly spec: LanguageServerSpec,
    readonly root: string,
  ) {
    this.gone = new Promise<never>((_, reject) => {
      this.markGone = reject;
    });
    this.gone.catch(() => {});
    this.pullOffered = new Promise<void>((resolve) => {
      this.offerPull = resolve;
    });
    const [program, ...args] = spec.command;
    // Its own process group: a Ctrl-C meant for editgate does not reach it; editgate stops it (stopNow).
    this.child = spawn(program!, args, {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    // It runs for the process's life but never keeps the process alive: the process's end stops it.
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr])
      (stream as unknown as { unref?: () => void }).unref?.();
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (text: string) => {
      this.stderr = (this.stderr + text).slice(-STDERR_KEPT);
    });
    this.connection = new LspConnection(this.child.stdout!, this.child.stdin!, (method, params) =>
      this.answer(method, params),
    );
    this.child.on('error', (error: NodeJS.ErrnoException) => {
      this.stop(
        error.code === 'ENOENT'
          ? `${program} was not found: install it, or correct languageServers.${spec.name}.command`
          : `${program} could not be started (${error.code ?? error.message})`,
      );
    });
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      this.stop(`its server stopped (${signal ?? `exit code ${code}`})${this.lastStderrLine()}`);
    });
    this.ready = this.initialize();
    // A server that failed says so at the next check; nobody need be waiting on `ready` now.
    this.ready.catch(() => {});
  }

  /** Whether the server has answered `initialize` (it is no longer starting). */
  get started(): boolean {
    return this.initialized;
  }

  /** Why the server is not running, once it is not. */
  get stoppedBecause(): string | undefined {
    return this.stopped?.message;
  }

  /** Called once when the server stops, for whatever reason (the pool forgets it). */
  whenStopped(listener: (server: LanguageServer) => void): void {
    this.onStop.add(listener);
  }

  /**
   * The server's diagnostics for the file at `path` (absolute) with the text `before`, then with `after`,
   * one check at a time per server. `signal` stops the wait (the budget ran out, the call was cancelled):
   * the file is closed again all the same, so the next check starts from the file on disk.
   */
  diagnose(
    path: string,
    languageId: string,
    before: string,
    after: string,
    signal: AbortSignal,
  ): Promise<{ before: LspDiagnostic[]; after: LspDiagnostic[] }> {
    const work = this.turn.then(async () => {
      await this.ready;
      signal.throwIfAborted();
      this.tellTouched(path);
      const kept = this.last?.path === path && this.last.text === before ? this.last.diagnostics : undefined;
      const old = kept ?? (before === '' ? [] : await this.diagnoseText(path, languageId, before, signal));
      const fresh = await this.diagnoseText(path, languageId, after, signal);
      this.last = { path, text: after, diagnostics: fresh };
      return { before: old, after: fresh };
    });
    this.turn = work.catch(() => {});
    return untilAborted(work, signal);
  }

  /**
   * Stops the server the protocol's way (`shutdown`, then `exit`), by a signal to its process group when it
   * has not gone within `timeoutMs` (each step).
   */
  async shutdown(timeoutMs = SHUTDOWN_MS): Promise<void> {
    if (this.exited) return;
    // Waiting on it now must keep the process alive until it is gone.
    this.child.ref();
    for (const stream of [this.child.stdin, this.child.stdout])
      (stream as unknown as { ref?: () => void }).ref?.();
    const gone = new Promise<void>((resolve) => {
      if (this.exited) resolve();
      else this.child.once('exit', () => resolve());
    });
    const goneWithin = (ms: number) =>
      withTimeout(gone, ms).then(
        () => true,
        () => false,
      );
    if (!this.stopped) {
      await withTimeout(this.connection.request('shutdown', null), timeoutMs).catch(() => {});
      this.connection.notify('exit', null);
      this.stop('editgate stopped it');
    }
    if (await goneWithin(timeoutMs)) return;
    this.stopNow('SIGTERM');
    if (!(await goneWithin(timeoutMs))) this.stopNow('SIGKILL');
  }

  /** Stops the server and what it started (its process group) at once: for the process's last moment. */
  stopNow(signal: NodeJS.Signals = 'SIGTERM'): void {
    this.stop('editgate stopped it');
    if (this.child.pid === undefined) return;
    try {
      // The group too when the server itself has exited: what it started (tsserver) may still run.
      if (process.platform === 'win32') {
        if (!this.exited) this.child.kill(signal);
      } else process.kill(-this.child.pid, signal);
    } catch {
      // Already gone.
    }
  }

  private async initialize(): Promise<void> {
    const rootUri = pathToFileURL(this.root).href;
    const capabilities = {
      textDocument: {
        synchronization: { dynamicRegistration: false, didSave: false, willSave: false },
        publishDiagnostics: { relatedInformation: false, versionSupport: true },
        diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
      },
      workspace: {
        configuration: true,
        workspaceFolders: true,
        didChangeWatchedFiles: { dynamicRegistration: true },
        applyEdit: false,
      },
      window: { workDoneProgress: false },
      general: { positionEncodings: ['utf-16'] },
    };
    let result: InitializeResult | null;
    try {
      result = await withTimeout(
        this.connection.request<InitializeResult | null>('initialize', {
          processId: process.pid,
          clientInfo: { name: 'editgate' },
          rootUri,
          rootPath: this.root,
          workspaceFolders: [{ uri: rootUri, name: this.root.slice(this.root.lastIndexOf('/') + 1) || '/' }],
          capabilities,
          ...(this.spec.initializationOptions
            ? { initializationOptions: this.spec.initializationOptions }
            : {}),
        }),
        INITIALIZE_MS,
      );
    } catch (error) {
      if (this.stopped) throw this.stopped;
      const why =
        error instanceof TimeoutError
          ? `its server did not answer initialize in ${INITIALIZE_MS / 1000} s`
          : `its server refused initialize: ${error instanceof Error ? error.message : String(error)}`;
      this.stopNow();
      throw this.stop(why);
    }
    if (this.stopped) throw this.stopped;
    if (result?.capabilities?.diagnosticProvider) this.offered = 'pull';
    else if (result?.capabilities?.executeCommandProvider?.commands?.includes(TSSERVER_REQUEST))
      this.offered = 'tsserver';
    this.initialized = true;
    this.connection.notify('initialized', {});
    if (this.spec.settings)
      this.connection.notify('workspace/didChangeConfiguration', { settings: this.spec.settings });
  }

  /** The diagnostics of one text of the file: opened with it, read, closed. */
  private async diagnoseText(
    path: string,
    languageId: string,
    text: string,
    signal: AbortSignal,
  ): Promise<LspDiagnostic[]> {
    const uri = pathToFileURL(path).href;
    const version = ++this.version;
    const how = this.how();
    const pushed = how === 'push' ? this.watchPushes(path, version) : undefined;
    this.connection.notify('textDocument/didOpen', { textDocument: { uri, languageId, version, text } });
    try {
      // A server that offers to be pulled after the open (it registers the request) pushes nothing more.
      const pushedDiagnostics =
        pushed && (await Promise.race([pushed.settled(signal), this.pullOffered.then(() => undefined)]));
      if (pushedDiagnostics) return pushedDiagnostics;
      if (this.how() === 'pull') {
        const report = await this.connection.request<{ items?: unknown } | null>(
          'textDocument/diagnostic',
          { textDocument: { uri } },
          signal,
        );
        return diagnosticsOf(report?.items);
      }
      if (this.how() === 'tsserver') {
        const asked = (command: string) =>
          this.connection.request<{ body?: unknown } | null>(
            'workspace/executeCommand',
            { command: TSSERVER_REQUEST, arguments: [command, { file: uri }] },
            signal,
          );
        const [syntactic, semantic] = await Promise.all([
          asked('syntacticDiagnosticsSync'),
          asked('semanticDiagnosticsSync'),
        ]);
        return [...tsserverDiagnostics(syntactic?.body), ...tsserverDiagnostics(semantic?.body)];
      }
      return await pushed!.settled(signal);
    } finally {
      pushed?.stop();
      this.connection.notify('textDocument/didClose', { textDocument: { uri } });
      await this.barrier();
    }
  }

  /** How this server's diagnostics are read now (HowRead). */
  private how(): HowRead {
    return this.pullRegistrations.size > 0 ? 'pull' : this.offered;
  }

  /**
   * Waits until the server has read everything sent before: a request for a method no server has, answered
   * in order. What the server pushed about the close arrives before that answer, so it is never taken for
   * what it says of the next open.
   */
  private async barrier(): Promise<void> {
    await withTimeout(this.connection.request('editgate/barrier', null), SHUTDOWN_MS).catch(() => {});
  }

  /** The diagnostics pushed for `path` at `version` (or without a version), once quiet a while. */
  private watchPushes(path: string, version: number) {
    const opened = Date.now();
    let settleMs: number | undefined;
    let latest: LspDiagnostic[] | undefined;
    let timer: NodeJS.Timeout | undefined;
    let done: ((diagnostics: LspDiagnostic[]) => void) | undefined;
    const off = this.connection.onNotification('textDocument/publishDiagnostics', (params) => {
      const {
        uri,
        version: pushedVersion,
        diagnostics,
      } = (params ?? {}) as {
        uri?: unknown;
        version?: unknown;
        diagnostics?: unknown;
      };
      if (typeof uri !== 'string' || pathOfUri(uri) !== path) return;
      if (typeof pushedVersion === 'number' && pushedVersion !== version) return;
      latest = diagnosticsOf(diagnostics);
      settleMs ??= Math.min(MOST_SETTLE_MS, Math.max(SETTLE_MS, (Date.now() - opened) / 2));
      clearTimeout(timer);
      timer = setTimeout(() => done?.(latest!), settleMs);
    });
    return {
      settled: (signal: AbortSignal) =>
        untilAborted(
          Promise.race([
            new Promise<LspDiagnostic[]>((resolve) => {
              done = resolve;
            }),
            this.gone,
          ]),
          signal,
        ),
      stop: () => {
        off();
        clearTimeout(timer);
      },
    };
  }

  /** Files checked before may have been written since: the server is told to read them again. */
  private tellTouched(path: string): void {
    const others = [...this.touched].filter((other) => other !== path);
    this.touched.add(path);
    if (others.length === 0) return;
    // Another file may have changed, so the diagnostics kept of the last text may no longer hold.
    if (this.last?.path !== path) this.last = undefined;
    this.connection.notify('workspace/didChangeWatchedFiles', {
      changes: others.map((other) => ({ uri: pathToFileURL(other).href, type: 2 })),
    });
  }

  /** What editgate answers the server's own requests: settings, folders; never an edit. */
  private answer(method: string, params: unknown): unknown {
    switch (method) {
      case 'workspace/configuration': {
        const items = (params as { items?: { section?: unknown }[] } | null)?.items ?? [];
        return items.map((item) => sectionOf(this.spec.settings, item.section));
      }
      case 'client/registerCapability':
      case 'client/unregisterCapability': {
        const { registrations, unregisterations } = (params ?? {}) as {
          registrations?: { id?: unknown; method?: unknown }[];
          unregisterations?: { id?: unknown; method?: unknown }[];
        };
        for (const { id, method: registered } of registrations ?? [])
          if (registered === 'textDocument/diagnostic') this.pullRegistrations.add(String(id));
        for (const { id } of unregisterations ?? []) this.pullRegistrations.delete(String(id));
        if (this.pullRegistrations.size > 0) this.offerPull();
        return null;
      }
      case 'workspace/diagnostic/refresh':
      case 'workspace/semanticTokens/refresh':
      case 'workspace/inlayHint/refresh':
      case 'workspace/inlineValue/refresh':
      case 'workspace/codeLens/refresh':
      case 'workspace/foldingRange/refresh':
      case 'window/workDoneProgress/create':
      case 'window/showMessageRequest':
      case 'window/showDocument':
        return null;
      case 'workspace/workspaceFolders':
        return [{ uri: pathToFileURL(this.root).href, name: this.root }];
      case 'workspace/applyEdit':
        return { applied: false, failureReason: 'editgate lets no language server edit files.' };
      default:
        throw new LspRequestError(METHOD_NOT_FOUND, `editgate does not serve ${method}`);
    }
  }

  private stop(why: string): LanguageServerStopped {
    if (this.stopped) return this.stopped;
    this.stopped = new LanguageServerStopped(why);
    this.connection.end(this.stopped);
    this.markGone(this.stopped);
    for (const listener of this.onStop) listener(this);
    return this.stopped;
  }

  private lastStderrLine(): string {
    const lines = this.stderr.split('\n').filter((line) => line.trim() !== '');
    const last = lines.at(-1)?.trim();
    return last ? `: ${last.length > 200 ? `${last.slice(0, 200)}…` : last}` : '';
  }
}

interface InitializeResult {
  capabilities?: { diagnosticProvider?: unknown; executeCommandProvider?: { commands?: unknown[] } };
}

/** tsserver's diagnostics (1-based lines, a category) as the protocol's; suggestions left out. */
function tsserverDiagnostics(body: unknown): LspDiagnostic[] {
  if (!Array.isArray(body)) return [];
  const severity: Record<string, number> = { error: 1, warning: 2, message: 3 };
  const found: LspDiagnostic[] = [];
  for (const item of body) {
    if (typeof item !== 'object' || item === null) continue;
    const { start, end, text, code, category } = item as {
      start?: { line?: unknown; offset?: unknown };
      end?: { line?: unknown; offset?: unknown };
      text?: unknown;
      code?: unknown;
      category?: unknown;
    };
    if (typeof text !== 'string' || typeof start?.line !== 'number') continue;
    const level = typeof category === 'string' ? severity[category] : undefined;
    if (level === undefined) continue;
    const at = (point: typeof start) => ({
      line: Math.max(0, Number(point?.line ?? start.line) - 1),
      character: Math.max(0, Number(point?.offset ?? 1) - 1),
    });
    found.push({
      range: { start: at(start), end: at(end ?? start) },
      severity: level,
      ...(typeof code === 'number' || typeof code === 'string' ? { code } : {}),
      source: 'typescript',
      message: text,
    });
  }
  return found;
}

/** The settings at a dotted `section` ("python.analysis"), or all of them without one; null when none. */
function sectionOf(settings: Record<string, unknown> | undefined, section: unknown): unknown {
  if (!settings) return null;
  if (typeof section !== 'string' || section === '') return settings;
  let value: unknown = settings;
  for (const part of section.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return null;
    value = (value as Record<string, unknown>)[part];
  }
  return value ?? null;
}

/** The well-formed diagnostics of what a server sent; anything else in the list is left out. */
function diagnosticsOf(value: unknown): LspDiagnostic[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (item): item is LspDiagnostic =>
      typeof item === 'object' &&
      item !== null &&
      typeof item.message === 'string' &&
      typeof item.range?.start?.line === 'number',
  );
}

function pathOfUri(uri: string): string | undefined {
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

class TimeoutError extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError()), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** `promise`, or its signal's reason as soon as the signal fires. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
