/**
 * OpenAI's native apply_patch tool (`{"type": "apply_patch"}` in the Responses API): its `apply_patch_call`
 * items, each one operation (create_file / update_file with a V4A diff, delete_file), are run through
 * editgate's apply_patch tool. All the apply_patch calls of one response are one change set: shown and
 * approved once, written all or nothing; each call gets an `apply_patch_call_output`, `completed` or
 * `failed` with a message the model can act on.
 */
import type OpenAI from 'openai';
import { isEditgateError } from '../core/errors.js';
import { parseCreateDiff, parseUpdateDiff } from '../core/patch.js';
import type { EditTools } from '../tools/index.js';

type ApplyPatchCall = OpenAI.Responses.ResponseApplyPatchToolCall;
type ApplyPatchOutput = OpenAI.Responses.ResponseInputItem.ApplyPatchCallOutput;

/** One apply_patch operation, as the Responses API and the AI SDK's openai.tools.applyPatch carry it. */
export type ApplyPatchOperation = ApplyPatchCall['operation'];

/**
 * Applies operations as one change set; one answer per operation, in order (all completed, or all failed
 * with a message that names what to fix).
 */
export async function applyPatchOperations(
  tools: EditTools,
  operations: readonly ApplyPatchOperation[],
): Promise<{ status: 'completed' | 'failed'; output: string }[]> {
  const calls = operations.map((operation, i) => ({ call_id: String(i), operation }) as ApplyPatchCall);
  return (await runApplyPatchCalls(tools, calls)).map(({ status, output }) => ({
    status,
    output: output ?? '',
  }));
}

/** Runs every apply_patch_call of a response as one change set; one output per call, in order. */
export async function runApplyPatchCalls(
  tools: EditTools,
  calls: readonly ApplyPatchCall[],
): Promise<ApplyPatchOutput[]> {
  if (calls.length === 0) return [];
  const answer = (
    call: ApplyPatchCall,
    status: ApplyPatchOutput['status'],
    output: string,
  ): ApplyPatchOutput => ({
    type: 'apply_patch_call_output',
    call_id: call.call_id,
    status,
    output,
  });
  // A diff that does not parse is named by its own call, with the line of its own diff.
  for (const call of calls) {
    const refusal = diffRefusal(call);
    if (refusal === null) continue;
    return calls.map((each) =>
      each === call
        ? answer(each, 'failed', refusal)
        : answer(
            each,
            'failed',
            `Not applied: the apply_patch calls of this turn are applied together, and the one for ${call.operation.path} was refused (${refusal}) Send all of them again once it is fixed.`,
          ),
    );
  }
  const result = await tools.execute('apply_patch', { patch: patchText(calls) });
  const status = result.ok ? 'completed' : 'failed';
  return calls.map((call) => answer(call, status, result.message));
}

function diffRefusal(call: ApplyPatchCall): string | null {
  const { operation } = call;
  try {
    if (operation.type === 'update_file') parseUpdateDiff(operation.diff);
    else if (operation.type === 'create_file') parseCreateDiff(operation.diff);
    return null;
  } catch (error) {
    if (isEditgateError(error)) return `${operation.path}: ${error.message.replace('The patch', 'The diff')}`;
    throw error;
  }
}

/** The calls' operations as one patch in Codex's envelope, which the apply_patch tool reads. */
function patchText(calls: readonly ApplyPatchCall[]): string {
  const lines = ['*** Begin Patch'];
  for (const { operation } of calls) {
    if (operation.type === 'delete_file') lines.push(`*** Delete File: ${operation.path}`);
    else {
      lines.push(`*** ${operation.type === 'create_file' ? 'Add' : 'Update'} File: ${operation.path}`);
      const diff = operation.diff.replace(/\r?\n$/, '');
      if (diff !== '') lines.push(diff);
    }
  }
  lines.push('*** End Patch');
  return lines.join('\n');
}
