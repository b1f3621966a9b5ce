/**
 * Issue #26: one path identity. The guard finds a name as it exists on disk when the caller wrote it in
 * another Unicode form (as the reference filesystem server does), and deny globs match either form: a glob
 * on `clés/**` catches `cle\u0301s/…` (NFD) as well as `cl\u00e9s/…` (NFC), whichever is on disk.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isEditgateError } from '../../src/core/errors.js';
import { Guard } from '../../src/workspace/guard.js';

const NFC = 'caf\u00e9';
const NFD = 'cafe\u0301';

let base: string;
let root: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'editgate-identity-')));
  root = path.join(base, 'app');
  mkdirSync(root);
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isEditgateError(error)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

describe('the name on disk', () => {
  it('a name given in the other form resolves to the entry on disk, in a folder and as a file', async () => {
    mkdirSync(path.join(root, NFC));
    writeFileSync(path.join(root, NFC, 'config.js'), 'x');
    const guard = await Guard.create({ roots: [root] });
    const resolved = await guard.resolve(`${NFD}/config.js`);
    expect(resolved).toMatchObject({ relative: `${NFC}/config.js`, exists: true });
    expect(resolved.absolute).toBe(path.join(root, NFC, 'config.js'));
    // A new file in an existing folder: the folder as it is on disk, the new name as given.
    const created = await guard.resolve(`${NFD}/${NFD}.txt`);
    expect(created).toMatchObject({ relative: `${NFC}/${NFD}.txt`, exists: false });
    // Nothing there at all: the bytes as given.
    expect((await guard.resolve(`${NFD}2/a`)).relative).toBe(`${NFD}2/a`);
  });

  it('the exact bytes win when they exist; two entries of the same name under NFC are ambiguous', async () => {
    writeFileSync(path.join(root, NFC), 'nfc');
    writeFileSync(path.join(root, NFD), 'nfd');
    const guard = await Guard.create({ roots: [root] });
    expect((await guard.resolve(NFD)).relative).toBe(NFD);
    expect((await guard.resolve(NFC)).relative).toBe(NFC);
    // U+212B ANGSTROM SIGN is Å under NFC, as are both entries below: which one is meant is unclear.
    writeFileSync(path.join(root, 'A\u030a'), '1');
    writeFileSync(path.join(root, '\u00c5'), '2');
    const ambiguous = await refusal(guard.resolve('\u212b'));
    expect(ambiguous.code).toBe('INVALID_INPUT');
    expect(ambiguous.message).toContain('look the same but are written differently');
  });

  it('ASCII names too: the Kelvin sign on disk is K under NFC', async () => {
    writeFileSync(path.join(root, '\u212aey.txt'), 'k');
    const guard = await Guard.create({ roots: [root] });
    expect((await guard.resolve('Key.txt')).relative).toBe('\u212aey.txt');
  });

  it('names in a link’s target are bytes, as the kernel reads them', async () => {
    mkdirSync(path.join(root, NFC));
    symlinkSync(NFD, path.join(root, 'link'));
    const guard = await Guard.create({ roots: [root] });
    // The link leads to a folder that does not exist byte for byte: a missing path, not café.
    expect(await guard.resolve('link/x.txt')).toMatchObject({ relative: `${NFD}/x.txt`, exists: false });
  });
});

describe('deny globs match either form', () => {
  for (const [globForm, diskForm] of [
    ['NFC', 'NFD'],
    ['NFD', 'NFC'],
  ] as const) {
    it(`a ${globForm} glob refuses a folder written ${diskForm} on disk, by either name, and a new one`, async () => {
      const form = (which: 'NFC' | 'NFD') => 'cl\u00e9s'.normalize(which);
      mkdirSync(path.join(root, form(diskForm)));
      writeFileSync(path.join(root, form(diskForm), 'key.pem'), 'secret');
      const guard = await Guard.create({ roots: [root], deny: [`${form(globForm)}/**`] });
      for (const given of [form('NFC'), form('NFD')]) {
        const error = await refusal(guard.resolve(`${given}/key.pem`));
        expect(error.code).toBe('OUTSIDE_ROOT');
        expect(error.message).toContain('is denied by workspace rule');
      }
      rmSync(path.join(root, form(diskForm)), { recursive: true });
      for (const given of [form('NFC'), form('NFD')]) {
        expect((await refusal(guard.resolve(`${given}/new.txt`))).code).toBe('OUTSIDE_ROOT');
      }
    });
  }
});

describe('property: one file, whichever form names it', () => {
  // Letters with accents and compatibility characters, each of which NFC and NFD write differently.
  const pieces = [
    'a',
    'e',
    'é',
    'e\u0301',
    'Å',
    'A\u030a',
    '\u212b',
    'ñ',
    'n\u0303',
    'ﬁ',
    '\u212a',
    'x',
    '-',
  ];
  const name = fc
    .array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 12 })
    .map((parts) => `f${parts.join('')}`);

  it('a file created in one form is found, as it is on disk, by the other form and by its own', async () => {
    await fc.assert(
      fc.asyncProperty(
        name,
        fc.constantFrom('NFC', 'NFD') as fc.Arbitrary<'NFC' | 'NFD'>,
        async (raw, form) => {
          const folder = mkdtempSync(path.join(base, 'p-'));
          const onDisk = raw.normalize(form);
          writeFileSync(path.join(folder, onDisk), '');
          const guard = await Guard.create({ roots: [folder] });
          for (const given of [onDisk, raw.normalize('NFC'), raw.normalize('NFD')]) {
            expect((await guard.resolve(given)).relative).toBe(onDisk);
          }
          rmSync(folder, { recursive: true });
        },
      ),
      { numRuns: 60 },
    );
  });
});
