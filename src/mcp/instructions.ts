import { CHANGE_TOOL_NAMES } from '../tools/index.js';
import type { ApprovalMode } from './approval-mode.js';

/** The change tools named in a sentence, from the tools' own list: "write_file, edit_file, ... and undo_edit". */
const CHANGE_TOOLS = `${CHANGE_TOOL_NAMES.slice(0, -1).join(', ')} and ${CHANGE_TOOL_NAMES.at(-1)}`;

function approvalText(approval: ApprovalMode, changeTtlMs: number): string {
  const minutes = Math.max(1, Math.round(changeTtlMs / 60_000));
  if (approval.unavailable) {
    return `Approval: elicit (${approval.why}). Tell the user: this client cannot show editgate's approval prompt; they can restart editgate with --approve preview.`;
  }
  switch (approval.mode) {
    case 'elicit':
      return `Approval: elicit (${approval.why}). Each change is shown to the user as a diff in an approval prompt before it is written. If they deny it, the result says so (with their reason when they gave one): do not retry the same change; follow their reason or ask them.`;
    case 'preview':
      return `Approval: preview (${approval.why}). ${CHANGE_TOOLS} write nothing: they return the diff and a change_id. Show the user the diff, then call apply_change with the change_id, file_path and change_hash the proposal states to write it; the user approves that call in their client. A change_id works once and expires after about ${minutes} minute${minutes === 1 ? '' : 's'}; if the file changed in the meantime apply_change refuses with STALE: read the file and make the change again.`;
    case 'web':
      return `Approval: web (${approval.why}). Each change is shown to the user as a diff on a review page in their browser before it is written; they may also edit your change before approving it, and then the result tells you exactly what they changed: keep their version. If they deny a change, the result says so (with their reason when they gave one): do not retry the same change; follow their reason or ask them.`;
    case 'policy':
      return `Approval: policy (${approval.why}). The workspace policy alone allows or refuses each change; no one is asked. A change no rule allows fails with DENIED_NO_APPROVER (no one could be asked), one a rule denies with DENIED_POLICY: do not retry either.`;
    default:
      return `Approval: deny (${approval.why}). This server is read-only: only read_file is available.`;
  }
}

/** The server's instructions to the model: where it works, how changes are approved, the editing rules. */
export function serverInstructions(roots: readonly string[], approval: ApprovalMode, changeTtlMs: number) {
  const where =
    roots.length === 1
      ? `editgate reads and edits files in the workspace ${roots[0]}; relative paths are relative to it.`
      : `editgate reads and edits files in the workspaces ${roots.join(', ')}; relative paths are relative to ${roots[0]}.`;
  return [
    where,
    approvalText(approval, changeTtlMs),
    'Read the lines you will change with read_file before editing them, and the whole file before overwriting it with write_file. Prefer edit_file and multi_edit (exact text replacement) to rewriting whole files. Never copy the line-number prefix of read_file output into old_string.',
    'Every failure comes back as a tool result with an editgate code (NOT_FOUND, AMBIGUOUS, STALE, ...) and a message that says what to do next.',
  ].join('\n\n');
}
