import type { ApprovalRequest, Approver, Decision } from '../gate/approval.js';

/** An approver whose question can be withdrawn: the terminal prompt, the web page. */
export type CancellableApprover = (
  request: ApprovalRequest,
  options?: { signal?: AbortSignal },
) => Decision | Promise<Decision>;

export interface AnswerSource {
  /** Where an answer from here was given, as it reads after "Answered ": "in the terminal". */
  where: string;
  ask: CancellableApprover;
}

/**
 * One question asked on several front ends at once (the terminal prompt and the web page): the first
 * answer wins, and the others are withdrawn with `{ by, decision }` as the abort reason, so each can show
 * who answered and how. A front end that fails is ignored while another is still asking; if all fail,
 * the first failure is the answer (the gate counts a failed approver as a denial). The gate sees one
 * Approver and never knows which front end answered.
 */
export function firstAnswer(sources: readonly AnswerSource[]): Approver {
  if (sources.length === 1) return (request) => sources[0]!.ask(request);
  return (request) =>
    new Promise<Decision>((resolve, reject) => {
      const controllers = sources.map(() => new AbortController());
      let settled = false;
      let failures = 0;
      let firstFailure: unknown;
      sources.forEach((source, index) => {
        Promise.resolve()
          .then(() => source.ask(request, { signal: controllers[index]!.signal }))
          .then(
            (decision) => {
              if (settled) return;
              settled = true;
              controllers.forEach((controller, other) => {
                if (other !== index) controller.abort({ by: source.where, decision });
              });
              resolve(decision);
            },
            (error: unknown) => {
              if (settled) return;
              failures++;
              if (failures === 1) firstFailure = error;
              if (failures === sources.length) {
                settled = true;
                reject(firstFailure);
              }
            },
          );
      });
    });
}
