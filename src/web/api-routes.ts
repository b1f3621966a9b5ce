/** The JSON API's reads: the changes listed, one change, one file's texts (shapes: wire.ts). */
import { HttpError, sendJson } from './http-reply.js';
import type { ReviewItem } from './review-queue.js';
import { mustGet, type RouteContext, visibleTo } from './route-context.js';
import type { ChangeDetailReply, ChangeListReply, ChangeSummary, FileTextsReply } from './wire.js';

export function listChanges({ res, state, session }: RouteContext): void {
  sendJson(res, 200, {
    changes: visibleTo(session, state.queue.list()).map(summary),
  } satisfies ChangeListReply);
}

export function changeDetail({ res, state, params }: RouteContext): void {
  sendJson(res, 200, detail(mustGet(state, params.id)));
}

export function fileTexts({ res, state, params }: RouteContext): void {
  const item = mustGet(state, params.id);
  const entry = item.files[Number(params.index)];
  if (!entry) throw new HttpError(404, 'This change has no such file.');
  if (!entry.texts) throw new HttpError(404, `The texts of ${entry.path} are not held (it is too large).`);
  sendJson(res, 200, {
    path: entry.path,
    kind: entry.kind,
    before: entry.texts.before,
    after: entry.texts.after,
  } satisfies FileTextsReply);
}

/** A change in the API's list. */
function summary(item: ReviewItem): ChangeSummary {
  return {
    id: item.id,
    status: item.status,
    hash: item.hash,
    tool: item.request.tool,
    kind: item.request.files[0]!.kind,
    path: item.request.files[0]!.path,
    source: item.source,
    files: item.files.map((file) => ({ path: file.path, kind: file.kind, stats: file.stats })),
    ...(item.outcome ? { outcome: { by: item.outcome.by, decision: item.outcome.decision } } : {}),
    ...(item.statusNote ? { statusNote: item.statusNote } : {}),
  };
}

/** A change as the API reads it: the summary, the question and note, and each file's diff text. */
function detail(item: ReviewItem): ChangeDetailReply {
  return {
    ...summary(item),
    ...(item.request.question ? { question: item.request.question } : {}),
    ...(item.request.files[0]!.note ? { note: item.request.files[0]!.note } : {}),
    ...(item.request.findings ? { findings: item.request.findings } : {}),
    files: item.files.map((file) => ({
      path: file.path,
      kind: file.kind,
      stats: file.stats,
      unifiedDiff: file.unifiedDiff,
      editable: file.texts !== undefined && file.kind !== 'delete',
      hunks: file.diff.hunks.length,
      ...(file.wholeOnly ? { wholeOnly: file.wholeOnly } : {}),
      ...(file.note ? { note: file.note } : {}),
    })),
  };
}
