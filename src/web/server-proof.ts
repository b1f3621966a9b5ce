/**
 * How a review server proves it is the one a discovery file names, before another editgate process sends
 * it anything: the file (the user's own, mode 0600) holds a key made for that server alone; the process
 * sends a fresh random challenge, and the server answers with an HMAC of it under that key. A program that
 * took the port (after the server ended and left its file behind, or another user's squatter) cannot
 * answer. Each decision the server sends back is signed the same way, bound to the challenge of its own
 * request, so an answer from anyone else is never taken for the person's.
 */
import { createHmac } from 'node:crypto';
import { sameSecret } from './request-guard.js';

/** `hook-endpoint`: the hook server's loopback port, proved with its token (cli/hook-endpoint.ts). */
export type ProofPurpose = 'hello' | 'decision' | 'hook-endpoint';

/** The proof for `purpose` over `fields` (an unambiguous encoding: a JSON array). */
export function serverProof(key: string, purpose: ProofPurpose, ...fields: string[]): string {
  return createHmac('sha256', key)
    .update(JSON.stringify(['editgate-review', purpose, ...fields]))
    .digest('base64url');
}

/** Whether `proof` is the proof for `purpose` over `fields` (compared in constant time). */
export function proofHolds(key: string, proof: unknown, purpose: ProofPurpose, ...fields: string[]): boolean {
  return typeof proof === 'string' && sameSecret(proof, serverProof(key, purpose, ...fields));
}
