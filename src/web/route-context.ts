/**
 * What a route's handler is given, once the checks of its access (route-access.ts) passed, and the lookups
 * of a change several handlers share.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnsweredFrom } from '../gate/approval.js';
import type { FileView } from './diff-html.js';
import { HttpError } from './http-reply.js';
import type { Face, Session } from './request-guard.js';
import type { ReviewItem } from './review-queue.js';
import type { ReviewState } from './review-state.js';

export interface RouteContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  /** The `:name` parts of the route's path. */
  readonly params: Readonly<Record<string, string>>;
  readonly state: ReviewState;
  /** The session the checks found (or, for a sign-in link, made); undefined on routes that need none. */
  readonly session: Session | undefined;
  /** The address the request came to: 127.0.0.1, or the listening address (HTTPS). */
  readonly face: Face;
}

/** The changes a session may see: all of them, or its change's link's one. */
export function visibleTo(session: Session | undefined, items: ReviewItem[]): ReviewItem[] {
  return session?.change === undefined ? items : items.filter((item) => item.id === session.change);
}

export type Handler = (context: RouteContext) => void | Promise<void>;

export function mustGet(state: ReviewState, id: string | null | undefined): ReviewItem {
  const item = id ? state.queue.get(id) : undefined;
  if (!item) throw new HttpError(404, 'There is no such change (it may have been answered long ago).');
  return item;
}

/** The diff views of a change, or of the person's own version of it (`variant`: its hash). */
export async function viewsOf(
  state: ReviewState,
  item: ReviewItem,
  variant: string | null,
): Promise<FileView[]> {
  if (!variant) return (await state.queue.views(item.id))!;
  const views = state.variants.get(item.id)?.get(variant);
  if (!views)
    throw new HttpError(
      404,
      'That version of the change is no longer held; show the diff of your version again.',
    );
  return views;
}

/** Where an answer came from, for its audit line: the address, the browser as it says, which link. */
export function answeredFrom(req: IncomingMessage, scoped: boolean): AnsweredFrom {
  const agent = req.headers['user-agent'];
  return {
    address: req.socket.remoteAddress ?? 'unknown',
    ...(typeof agent === 'string' && agent !== '' ? { userAgent: agent.slice(0, 200) } : {}),
    via: scoped ? 'change link' : 'review page',
  };
}
