/**
 * The page a person reads: its frame, its script and style, and the fragments its script loads (the queue,
 * a change, a page of a huge diff, an unchanged region expanded).
 */
import { type DiffLayout, expandRows, nextPageRow, renderPage } from './diff-html.js';
import { HttpError, integer, sendHtml } from './http-reply.js';
import { changeHtml, pageHtml, queueHtml } from './page.js';
import { SECURITY_HEADERS } from './request-guard.js';
import { mustGet, type RouteContext, viewsOf, visibleTo } from './route-context.js';

function layoutOf(url: URL): DiffLayout {
  return url.searchParams.get('view') === 'split' ? 'split' : 'unified';
}

/** No icon: an empty answer, so the browser stops asking. */
export function favicon({ res }: RouteContext): void {
  res.writeHead(204, SECURITY_HEADERS);
  res.end();
}

export function asset({ res, url, state }: RouteContext): void {
  const found = state.assets.get(url.pathname);
  if (!found) throw new HttpError(404, 'Nothing here.');
  res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': found.type });
  res.end(found.body);
}

/** The page's frame: the change asked for, or the first one waiting. */
export function page({ res, url, state, session }: RouteContext): void {
  const items = visibleTo(session, state.queue.list());
  // A change's link opens its change (the session sees no other).
  const wanted = url.searchParams.get('change') ?? session?.change;
  const item = wanted
    ? state.queue.get(wanted)
    : items.find((entry) => entry.status === 'pending' || entry.status === 'stale');
  if (wanted && !item)
    throw new HttpError(404, 'There is no such change (it may have been answered long ago).');
  sendHtml(res, pageHtml({ root: state.root, layout: layoutOf(url), ...(item ? { current: item } : {}) }));
}

export function queueFragment({ res, url, state, session }: RouteContext): void {
  sendHtml(
    res,
    queueHtml(visibleTo(session, state.queue.list()), url.searchParams.get('current') ?? undefined),
  );
}

export async function changeFragment({ res, url, state }: RouteContext): Promise<void> {
  const item = mustGet(state, url.searchParams.get('change'));
  sendHtml(res, changeHtml(item, (await state.queue.views(item.id))!, layoutOf(url)));
}

async function fileView({ url, state }: RouteContext) {
  const item = mustGet(state, url.searchParams.get('change'));
  const views = await viewsOf(state, item, url.searchParams.get('variant'));
  const fileIndex = integer(url, 'file');
  const view = views[fileIndex];
  if (!view) throw new HttpError(404, 'This change has no such file.');
  return { view, fileIndex };
}

/** One page of a huge diff, and the row that loads the next. */
export async function pageFragment(context: RouteContext): Promise<void> {
  const { view, fileIndex } = await fileView(context);
  const page = integer(context.url, 'page');
  if (page >= view.pageCount) throw new HttpError(404, 'The diff has no such page.');
  const layout = layoutOf(context.url);
  sendHtml(context.res, renderPage(view, fileIndex, page, layout) + nextPageRow(view, fileIndex, page));
}

/** An unchanged region, expanded. */
export async function expandFragment(context: RouteContext): Promise<void> {
  const { view, fileIndex } = await fileView(context);
  const { url } = context;
  const rows = expandRows(
    view,
    fileIndex,
    integer(url, 'old'),
    integer(url, 'new'),
    integer(url, 'count'),
    layoutOf(url),
  );
  if (rows === undefined) throw new HttpError(404, 'Those lines are not an unchanged region of this file.');
  sendHtml(context.res, rows);
}
