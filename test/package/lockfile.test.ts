import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../built-cli.js';

// `npm ci` refuses a lock file that is out of sync with package.json, and on another platform it finds a
// package's native binary only if the lock lists that platform's package. A lock written on one machine
// can silently miss the others (npm records only the optional packages the registry returned), so these
// checks read the lock as npm ci would, whatever machine the tests run on.

interface LockEntry {
  version?: string;
  optionalDependencies?: Record<string, string>;
  dev?: boolean;
}

const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
};

/** Packages whose binary comes in one optional package per platform: every platform must be locked. */
const NATIVE = ['@biomejs/biome', '@lydell/node-pty', 'esbuild'];

describe('package-lock.json', () => {
  it('is a v3 lock whose root lists exactly the dependencies of package.json', () => {
    expect(lock.lockfileVersion).toBe(3);
    const root = lock.packages[''] as LockEntry & {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    expect(root.dependencies ?? {}).toEqual(manifest.dependencies ?? {});
    expect(root.devDependencies ?? {}).toEqual(manifest.devDependencies ?? {});
  });

  it('lists every optional (platform) package of every locked package, at the version asked for', () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
        // Resolved as npm does: beside the package first, then up the node_modules folders.
        const candidates = [`${path}/node_modules/${name}`, `node_modules/${name}`];
        const locked = candidates.map((candidate) => lock.packages[candidate]).find(Boolean);
        if (!locked) missing.push(`${name}@${range} (wanted by ${path || 'the root'})`);
        else if (/^\d+\.\d+\.\d+$/.test(range) && locked.version !== range) {
          missing.push(`${name}@${range} (locked at ${locked.version})`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it.each(NATIVE)(
    'pins %s exactly, so the lock cannot drift to a version missing platform binaries',
    (name) => {
      const range = manifest.devDependencies?.[name] ?? manifest.dependencies?.[name];
      expect(range).toMatch(/^\d+\.\d+\.\d+$/);
      const entry = lock.packages[`node_modules/${name}`];
      expect(entry?.version).toBe(range);
      const platforms = Object.keys(entry?.optionalDependencies ?? {});
      // macOS, Windows and Linux at least, both architectures where the package builds them.
      for (const os of ['darwin', 'linux', 'win32']) {
        expect(platforms.some((platform) => platform.includes(os))).toBe(true);
      }
    },
  );
});
