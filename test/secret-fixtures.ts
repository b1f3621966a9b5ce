import { generateKeyPairSync, randomInt } from 'node:crypto';

/**
 * Secrets made when a test runs, never written in the source: a token of GitHub's shape (random, so no
 * service knows it) and a private key generated here.
 */
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function fakeGithubToken(): string {
  let token = 'ghp_';
  for (let i = 0; i < 36; i++) token += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return token;
}

export function freshPrivateKey(): string {
  return generateKeyPairSync('rsa', {
    modulusLength: 1024,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
}

/** Every string inside a JSON-like value, flattened to one text (to look for a secret anywhere in it). */
export function allText(value: unknown): string {
  return JSON.stringify(value) ?? '';
}
