import { describeRule } from '../gate/describe-rule.js';
import { type ChangeDetails, changeDetailsOf, changedLines } from '../tools/details.js';
import type { CallDescription } from '../tools/index.js';
import type { ToolResult } from '../tools/result.js';
import { titlePath } from '../tools/tool.js';

/** A call's log line: the tool, the paths it names (as the tool describes the call), what became of it. */
export function callSummary(name: string, call: CallDescription, result: ToolResult): string {
  const on = call.paths.length > 0 ? ` ${pathList(call.paths)}` : '';
  if (!result.ok) return `${name}: ${result.code}${on && ` on${on}`}`;
  const d = changeDetailsOf(name, result);
  if (!d) return `${name}${on}`;
  const { added, removed } = changedLines(d);
  const counts = `+${added} -${removed}`;
  if (d.changeId) return `${name}${on} ${counts}: staged as change ${d.changeId}`;
  if (!d.written) return `${name}${on}: no change`;
  return `${name}${on} ${counts}: written (${d.decision}, by ${decider(d)})`;
}

/** A call as its progress messages name it: "running edit_file on src/app.ts". */
export function runningStatus(name: string, call: CallDescription): string {
  return `running ${name}${call.paths.length > 0 ? ` on ${pathList(call.paths)}` : ''}`;
}

/** Who decided, as a log line names it: "policy (rule edit_file on src/** → allow)", "auto (--yes)". */
function decider(d: ChangeDetails): string {
  const by = String(d.decidedBy);
  if (by === 'policy' && d.rule) return `policy (rule ${describeRule(d.rule)})`;
  if (by === 'session' && d.grant) return `session (grant: ${d.grant === 'all' ? 'all edits' : 'this file'})`;
  if (by === 'auto' && d.auto) return `auto (${d.auto})`;
  return by;
}

/** A call's paths in one line: the first three, then how many more (a patch may name hundreds). */
function pathList(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).map(titlePath).join(', ');
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}
