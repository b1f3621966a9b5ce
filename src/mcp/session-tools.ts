import type { RequestId, Root } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorCode } from '../core/errors.js';
import type { EditTools } from '../tools/index.js';
import type { Logger } from './logger.js';
import { narrowRoots } from './roots.js';

/** Why no tool set can serve a call; returned as that call's error. */
export interface Refusal {
  code: ErrorCode;
  message: string;
}

export interface SessionToolsOptions {
  configuredRoots: readonly string[];
  build: (roots: string[]) => EditTools;
  /** Narrow to the client's roots (--use-client-roots). */
  useClientRoots: boolean;
  clientHasRoots: () => boolean;
  /** roots/list, sent as part of the call being served (so it travels on that call's HTTP stream). */
  listRoots: (relatedRequestId: RequestId) => Promise<Root[]>;
  log: Logger;
}

/**
 * The session's editgate tool set. Without --use-client-roots it is built once on the configured roots.
 * With it, the client's roots are asked for at the first call (and again after roots/list_changed) and
 * the set is rebuilt on their intersection with the configured roots. A rebuilt set starts a fresh read
 * ledger and fresh grants: they were given for other folders.
 */
export class SessionTools {
  private fixed: EditTools;
  private current: Promise<EditTools | Refusal> | undefined;

  constructor(private readonly options: SessionToolsOptions) {
    this.fixed = options.build([...options.configuredRoots]);
  }

  /** The definitions are the same whatever the roots. */
  get definitions(): EditTools['definitions'] {
    return this.fixed.definitions;
  }

  /** Builds the tool set again (the config in force changed: the person trusted it), before any call ran. */
  rebuild(): void {
    this.fixed = this.options.build([...this.options.configuredRoots]);
    this.current = undefined;
  }

  rootsChanged(): void {
    if (!this.options.useClientRoots) return;
    this.options.log.info('the client changed its roots; they are read again at the next tool call');
    this.current = undefined;
  }

  get(requestId: RequestId): Promise<EditTools | Refusal> {
    if (!this.options.useClientRoots) return Promise.resolve(this.fixed);
    if (!this.options.clientHasRoots()) {
      if (!this.current) {
        this.options.log.info(
          '--use-client-roots: the client does not offer roots, so the configured roots are used',
        );
        this.current = Promise.resolve(this.fixed);
      }
      return this.current;
    }
    const pending = (this.current ??= this.narrowed(requestId));
    // A failed roots/list is not remembered: the next call asks again.
    pending.then((result) => {
      if ('code' in result && result.code === 'IO' && this.current === pending) this.current = undefined;
    });
    return pending;
  }

  private async narrowed(requestId: RequestId): Promise<EditTools | Refusal> {
    const { log, configuredRoots } = this.options;
    let clientRoots: Root[];
    try {
      clientRoots = await this.options.listRoots(requestId);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      log.warn(`could not get the client's roots: ${text}`);
      // Fail closed: the person asked for the client's roots to narrow access, so none is granted without them.
      return {
        code: 'IO',
        message: `editgate could not get the client's workspace roots (${text}), so no file is available. Try again; if it persists, tell the user.`,
      };
    }
    const { roots, ignored } = await narrowRoots(configuredRoots, clientRoots);
    for (const entry of ignored) log.warn(`client root ignored: ${entry}`);
    if (roots.length === 0) {
      log.warn('none of the client roots lies within the configured roots: no file is available');
      return {
        code: 'OUTSIDE_ROOT',
        message: `None of the client's workspace roots lies within the folders editgate serves (${configuredRoots.join(', ')}), so no file is available. Tell the user.`,
      };
    }
    log.info(`roots narrowed to the client's: ${roots.join(', ')}`);
    try {
      return this.options.build(roots);
    } catch (error) {
      return { code: 'IO', message: error instanceof Error ? error.message : String(error) };
    }
  }
}
