/**
 * A client that declines or cancels editgate's question at once (claude -p, codex exec) is no one asked only
 * when its answer reaches editgate within FASTER_THAN_A_PERSON_MS of the question (src/gate/no-approver.ts).
 * On a loaded machine the round trip alone can take longer, and editgate then rightly reads the answer as a
 * person's. Such a call proves nothing about the check, so it is made again; a check that is broken (or
 * missing) never says "faster than a person can read it", so the test still fails on it.
 */

/** How many times a call answered at once is made before its last result is taken as it is. */
const ATTEMPTS = 5;

/**
 * `attempt()` (a call whose question the client declines or cancels at once, and that changes nothing when
 * refused) until editgate says it came faster than a person can read; the last result, and how many were made.
 */
export async function answeredAtOnce<T extends { text: string }>(
  attempt: () => Promise<T>,
): Promise<{ result: T; attempts: number }> {
  for (let attempts = 1; ; attempts++) {
    const result = await attempt();
    if (attempts === ATTEMPTS || result.text.includes('faster than a person can read it'))
      return { result, attempts };
  }
}
