// The key that seals what the state folder keeps (src/workspace/state-key.ts, issue #26): made once, private
// to the user, refused when it or its folder is not; a MAC made for one purpose never answers another.
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isSealed, KEY_FILE, seal, stateKey } from '../../src/workspace/state-key.js';
import { tempDir } from './helpers.js';

const made: string[] = [];
afterEach(async () => {
  while (made.length > 0) await rm(made.pop()!, { recursive: true, force: true });
});

async function folder(): Promise<string> {
  const base = await tempDir('editgate-key-');
  made.push(base);
  return join(base, 'state');
}

describe('stateKey', () => {
  it('is made once, 32 bytes only the user can read, in a folder only the user can write; none is made when not asked', async () => {
    const state = await folder();
    expect(stateKey(state, { create: false })).toBeNull();
    const key = stateKey(state, { create: true })!;
    expect(key).toHaveLength(32);
    expect(statSync(join(state, KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(state).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(state, KEY_FILE)).equals(key)).toBe(true);
    expect(stateKey(state, { create: true })!.equals(key)).toBe(true);
  });

  it('a state folder others can write is refused, saying how to make it private', async () => {
    const state = await folder();
    mkdirSync(state, { mode: 0o700 });
    chmodSync(state, 0o777);
    expect(() => stateKey(state, { create: true })).toThrow(
      /is not a folder of this user's that only they can write.*chmod 700.*EDITGATE_STATE_DIR/,
    );
  });

  it('a key file that is a link, or of the wrong size, is refused and never used', async () => {
    const linked = await folder();
    mkdirSync(linked, { mode: 0o700 });
    const elsewhere = join(linked, '..', 'their.key');
    writeFileSync(elsewhere, Buffer.alloc(32, 1), { mode: 0o600 });
    symlinkSync(elsewhere, join(linked, KEY_FILE));
    expect(() => stateKey(linked, { create: true })).toThrow(
      /is not one editgate made for this user \(it is a link\)/,
    );

    const short = await folder();
    mkdirSync(short, { mode: 0o700 });
    writeFileSync(join(short, KEY_FILE), 'guessable', { mode: 0o600 });
    expect(() => stateKey(short, { create: false })).toThrow(/it is not 32 bytes long/);
  });
});

describe('seal', () => {
  it('verifies only the same body, key and purpose', () => {
    const key = Buffer.alloc(32, 7);
    const mac = seal(key, 'change-set journal', 'body');
    expect(isSealed(key, 'change-set journal', 'body', mac)).toBe(true);
    expect(isSealed(key, 'change-set journal', 'body!', mac)).toBe(false);
    expect(isSealed(Buffer.alloc(32, 8), 'change-set journal', 'body', mac)).toBe(false);
    // A journal's MAC is no trust record's.
    expect(isSealed(key, 'config trust record', 'body', mac)).toBe(false);
    expect(isSealed(key, 'change-set journal', 'body', 'not hex')).toBe(false);
    expect(isSealed(key, 'change-set journal', 'body', undefined)).toBe(false);
  });
});
