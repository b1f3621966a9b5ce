/**
 * The page's live updates: a server-sent event for every change added or updated on the queue, with a
 * ping now and then so that proxies and the browser keep the stream open.
 */
import { statusText } from './page.js';
import { SECURITY_HEADERS } from './request-guard.js';
import type { ReviewState } from './review-state.js';
import type { RouteContext } from './route-context.js';

const EVENTS_PING_MS = 20_000;

export function openEvents({ res, state, session }: RouteContext): void {
  res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream' });
  res.write('retry: 2000\n\n');
  state.eventStreams.set(res, session?.change);
  state.openResponses.add(res);
  const ping = setInterval(() => res.write(': ping\n\n'), EVENTS_PING_MS);
  ping.unref();
  res.on('close', () => {
    clearInterval(ping);
    state.eventStreams.delete(res);
    state.openResponses.delete(res);
  });
}

/** Tells every open stream about each change of the queue; an answered change's own versions are dropped. */
export function broadcastChanges(state: ReviewState): void {
  state.queue.subscribe((event) => {
    const { item } = event;
    const data = JSON.stringify({
      type: event.type,
      id: item.id,
      status: item.status,
      text: statusText(item),
    });
    for (const [stream, only] of state.eventStreams)
      if (only === undefined || only === item.id) stream.write(`event: change\ndata: ${data}\n\n`);
    if (item.status === 'answered' || item.status === 'withdrawn') state.variants.delete(item.id);
  });
}
