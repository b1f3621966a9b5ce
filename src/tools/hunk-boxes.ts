/**
 * A yes/no box per hunk in an MCP elicitation form (#30): the one rule for which hunks get a box, what each
 * box says, and how the ticks become a `{ allow, hunks }` decision. Editgate's own MCP server
 * (mcp/elicit.ts) and the proxy's form (proxy/approvals.ts) both ask with it.
 */
import { markInvisible } from '../core/invisible.js';
import { pathInRoot } from '../core/root-named.js';
import type { ApprovalQuestion, Decision, HunkChoices } from '../gate/approval.js';

/**
 * The most hunks the form asks about one by one, a yes/no box each; a change with more is allowed or
 * denied whole there (the review page, --approve web, takes any number). Clients lay out every field of a
 * form at once, and a form of dozens of boxes is no review.
 */
export const MAX_FORM_HUNKS = 8;

/** The reason field's description when the form has hunk boxes: the reason goes with each unticked hunk. */
export const HUNK_REASON_DESCRIPTION =
  'Told to the assistant, e.g. why you denied the change, or why not the hunks you unticked';

/** One hunk's box in the form: its field name and what it stands for. */
export interface HunkField {
  field: string;
  path: string;
  /** 0-based, as the decision names it. */
  hunk: number;
}

/**
 * The hunks the form asks about, one box each (`hunk_1`, `hunk_2`, ... in the order of the diffs shown), or
 * none: a read, a change of one hunk, one of more than MAX_FORM_HUNKS, or one whose files are taken whole
 * (ApprovalFile.wholeOnly: a deletion, an undo, a proxied server that cannot write part of a call) has no
 * boxes.
 */
export function hunkFields(request: ApprovalQuestion): HunkField[] {
  const [first] = request.files;
  if (!first || first.kind === 'read') return [];
  const fields = request.files.flatMap((file) =>
    file.wholeOnly ? [] : file.diff.hunks.map((_, hunk) => ({ path: file.path, hunk })),
  );
  if (fields.length < 2 || fields.length > MAX_FORM_HUNKS) return [];
  return fields.map((each, index) => ({ ...each, field: `hunk_${index + 1}` }));
}

/** The form's properties for `hunks`: a box each, ticked by default, titled with its file and place. */
export function hunkBoxes(
  request: ApprovalQuestion,
  hunks: readonly HunkField[],
): Record<string, { type: 'boolean'; title: string; default: boolean }> {
  const boxes: Record<string, { type: 'boolean'; title: string; default: boolean }> = {};
  for (const { field, path, hunk } of hunks) {
    const file = request.files.find((each) => each.path === path)!;
    const { oldStart, oldLines, newStart, newLines } = file.diff.hunks[hunk]!;
    boxes[field] = {
      type: 'boolean',
      title: markInvisible(
        `Write hunk ${hunk + 1} of ${file.diff.hunks.length} of ${pathInRoot(file.path, file.root)} (@@ -${oldStart},${oldLines} +${newStart},${newLines} @@)`,
      ),
      default: true,
    };
  }
  return boxes;
}

/**
 * An allow with hunk boxes unticked allows those ticked (`{ allow, hunks }`), the form's reason given as
 * the reason for each hunk left out; a box the client did not send counts as ticked (its default). A denial,
 * or an allow with every box ticked, is `decision` as it is.
 */
export function withHunkChoices(
  decision: Decision,
  content: Record<string, unknown>,
  hunks: readonly HunkField[],
): Decision {
  if (decision === 'deny' || (typeof decision === 'object' && !('allow' in decision))) return decision;
  const left = hunks.filter(({ field }) => content[field] === false);
  if (left.length === 0) return decision;
  const allow = typeof decision === 'string' ? decision : decision.allow;
  const reason = typeof content.reason === 'string' ? content.reason.trim() : '';
  const choices: HunkChoices = {};
  for (const { field, path, hunk } of hunks) {
    const file = (choices[path] ??= { accept: [], reject: [] });
    if (content[field] === false) file.reject!.push(reason ? { hunk, reason } : { hunk });
    else file.accept.push(hunk);
  }
  return { allow, hunks: choices };
}
