/**
 * The syntax errors a change adds (issue #32), as a check of the gate (checks.ts): each file whose old and
 * new text are held in memory is read with its language's grammar (checks/syntax.ts), before the write.
 * What it finds is shown with the question and told to the model ('info'); a change rule with
 * `syntaxErrors` makes it ask or refuse (change-rules.ts). A file streamed because it is huge, a deleted
 * file and a file no grammar reads are not checked.
 */

import { languageOfPath, parserFor } from '../checks/grammars.js';
import { syntaxFindings } from '../checks/syntax.js';
import { throwIfCancelled } from '../core/errors.js';
import type { Finding } from '../core/findings.js';
import type { CheckContext } from './checks.js';
import type { Proposal } from './proposal.js';

export async function syntaxErrorFindings(proposal: Proposal, context: CheckContext): Promise<Finding[]> {
  const found: Finding[] = [];
  for (const file of proposal.files) {
    if (!file.texts || file.kind === 'delete') continue;
    throwIfCancelled(context.signal);
    found.push(...(await syntaxFindings(file.path, file.texts.before, file.texts.after)));
  }
  return found;
}

/** Start loading the grammar that reads `path`, if any (a failure is retried, and reported, by the check). */
export function prepareSyntaxCheck(path: string): void {
  const language = languageOfPath(path);
  if (language) parserFor(language).catch(() => undefined);
}
