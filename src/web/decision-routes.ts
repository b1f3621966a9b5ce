/**
 * What the person sends from the page (or a script through the API): the diff of their own version of a
 * change, and their decision. The rules of a decision are the queue's (review-queue.ts); here its refusals
 * become HTTP answers: 409 for a change that moved on, 400 for an answer that makes no sense.
 */
import { loadHighlighter } from '../core/highlight.js';
import { FileView } from './diff-html.js';
import { HttpError, parseBody, readJson, sendJson } from './http-reply.js';
import { filesHtml, outcomeText, statusText } from './page.js';
import { ReviewConflict, ReviewInvalid } from './review-queue.js';
import { answeredFrom, mustGet, type RouteContext } from './route-context.js';
import { answerSchema, type DecisionReply, type EditPreviewReply, editPreviewSchema } from './wire.js';

/** The person's versions of one change kept at once (each one's pages and regions can be loaded). */
const MAX_VARIANTS = 3;

export async function editPreview(context: RouteContext): Promise<void> {
  const { req, res, url, state, params } = context;
  const id = params.id!;
  const body = await readJson(req, state.maxBody);
  await answering(async () => {
    const { edited } = parseBody(editPreviewSchema, body);
    const item = mustGet(state, id);
    if (item.status !== 'pending')
      throw new ReviewConflict(statusText(item) || 'This change is no longer waiting.');
    const revised = state.queue.revise(id, edited);
    const views = await Promise.all(
      // The person's version is written whole: no hunks to choose in its diff.
      revised.files.map(
        async (file) => new FileView(file, await loadHighlighter(file.path), { hunksChoosable: false }),
      ),
    );
    let kept = state.variants.get(id);
    if (!kept) state.variants.set(id, (kept = new Map()));
    kept.set(revised.hash, views);
    while (kept.size > MAX_VARIANTS) kept.delete(kept.keys().next().value!);
    sendJson(res, 200, {
      hash: revised.hash,
      files: revised.files.map((file) => ({
        path: file.path,
        kind: file.kind,
        stats: file.stats,
        unifiedDiff: file.unifiedDiff,
      })),
      html: filesHtml(views, url.searchParams.get('view') === 'split' ? 'split' : 'unified'),
    } satisfies EditPreviewReply);
  });
}

export async function decide({ req, res, state, params, session }: RouteContext): Promise<void> {
  const body = await readJson(req, state.maxBody);
  await answering(async () => {
    const answer = parseBody(answerSchema, body);
    const scoped = session?.change !== undefined;
    const outcome = await state.queue.decide(params.id!, answer, undefined, {
      from: answeredFrom(req, scoped),
      scoped,
    });
    const { request } = mustGet(state, params.id!);
    sendJson(res, 200, {
      status: 'answered',
      text: outcomeText(outcome, request),
    } satisfies DecisionReply);
  });
}

async function answering(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof ReviewConflict) throw new HttpError(409, error.message);
    if (error instanceof ReviewInvalid) throw new HttpError(400, error.message);
    throw error;
  }
}
