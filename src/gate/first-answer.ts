/**
 * One question asked on several front ends at once (the terminal prompt or the chat's card, and the web
 * review page): the first answer wins, and the others are taken back with an AnsweredElsewhere as the
 * abort reason, so each can show who answered and how. It lives in the gate because it only combines
 * Approvers: the CLI and the chat agent both use it, and neither may import the web layer.
 */
import type { AnsweredFrom, Approver, Decision } from './approval.js';

/** The abort reason that tells a front end its question was answered on another one. */
export interface AnsweredElsewhere {
  /** Where, as it reads after "Answered ", e.g. "in the browser". */
  by: string;
  decision: Decision;
}

export interface AnswerSource {
  /** Where an answer from here was given, as it reads after "Answered ": "in the terminal". */
  where: string;
  ask: Approver;
}

/** The AnsweredElsewhere an abort reason carries, or undefined (a cancellation, a page that closed). */
export function answeredElsewhere(reason: unknown): AnsweredElsewhere | undefined {
  if (!reason || typeof reason !== 'object') return undefined;
  const { by, decision } = reason as Partial<AnsweredElsewhere>;
  return typeof by === 'string' && decision !== undefined ? { by, decision } : undefined;
}

/**
 * The Approver that asks every source at once. A source that fails is ignored while another is still
 * asking; if all fail, the first failure is the answer (the gate counts a failed approver as a denial).
 * The call's own signal (the gate's cancellation) takes the question back from every source, with its
 * reason. The gate sees one Approver and never knows which front end answered.
 */
export function firstAnswer(sources: readonly AnswerSource[]): Approver {
  if (sources.length === 1) return sources[0]!.ask;
  return (request, context = {}) =>
    new Promise<Decision>((resolve, reject) => {
      const controllers = sources.map(() => new AbortController());
      let settled = false;
      let failures = 0;
      let firstFailure: unknown;
      const outer = context.signal;
      const cancel = () => {
        if (settled) return;
        settled = true;
        for (const controller of controllers) controller.abort(outer!.reason);
        reject(outer!.reason);
      };
      if (outer?.aborted) {
        cancel();
        return;
      }
      outer?.addEventListener('abort', cancel, { once: true });
      const settle = () => {
        settled = true;
        outer?.removeEventListener('abort', cancel);
      };
      sources.forEach((source, index) => {
        // Where this source's answer came from: passed on only if it is the one that counts.
        let from: AnsweredFrom | undefined;
        Promise.resolve()
          .then(() =>
            source.ask(request, {
              signal: controllers[index]!.signal,
              answeredFrom: (where) => {
                from = where;
              },
            }),
          )
          .then(
            (decision) => {
              if (settled) return;
              settle();
              if (from) context.answeredFrom?.(from);
              const answered: AnsweredElsewhere = { by: source.where, decision };
              controllers.forEach((controller, other) => {
                if (other !== index) controller.abort(answered);
              });
              resolve(decision);
            },
            (error: unknown) => {
              if (settled) return;
              failures++;
              if (failures === 1) firstFailure = error;
              if (failures === sources.length) {
                settle();
                reject(firstFailure);
              }
            },
          );
      });
    });
}
