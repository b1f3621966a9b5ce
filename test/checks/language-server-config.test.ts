import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BUDGET_MS,
  languageIdFor,
  parseBudget,
  parseLanguageServers,
} from '../../src/checks/language-server-config.js';

/** A configured language server is checked when the config is read: each mistake says what to write. */
const GOOD = { command: ['typescript-language-server', '--stdio'], files: ['**/*.ts'] };

describe('parseLanguageServers', () => {
  it('reads servers by name', () => {
    expect(parseLanguageServers({ typescript: GOOD, python: { ...GOOD, warnings: true } })).toEqual([
      { name: 'typescript', ...GOOD },
      { name: 'python', ...GOOD, warnings: true },
    ]);
  });

  it.each([
    [[], /must be an object of named servers/],
    ['pyright', /must be an object of named servers/],
    [
      { ts: 'typescript-language-server' },
      /languageServers\.ts must be an object with "command" and "files"/,
    ],
    [
      { ts: { ...GOOD, command: 'typescript-language-server --stdio' } },
      /command must be a list.*not split at spaces/,
    ],
    [{ ts: { ...GOOD, command: [] } }, /command must be a non-empty list/],
    [{ ts: { ...GOOD, command: ['x', ''] } }, /command must be a non-empty list of non-empty strings/],
    [{ ts: { command: GOOD.command } }, /files must list the globs/],
    [{ ts: { ...GOOD, files: [] } }, /files must list the globs/],
    [{ ts: { ...GOOD, languageId: 3 } }, /languageId must be a non-empty string/],
    [{ ts: { ...GOOD, settings: [] } }, /settings must be an object/],
    [{ ts: { ...GOOD, initializationOptions: 'x' } }, /initializationOptions must be an object/],
    [{ ts: { ...GOOD, warnings: 'yes' } }, /warnings must be true or false/],
    [{ ts: { ...GOOD, cmd: ['x'] } }, /has "cmd", which is not a setting; the settings are command, files/],
    [{ 'bad name!': GOOD }, /is not a usable server name/],
  ])('refuses %j', (value, message) => {
    expect(() => parseLanguageServers(value)).toThrow(message);
  });
});

describe('parseBudget', () => {
  it('defaults to 1.5 s', () => {
    expect(parseBudget(undefined)).toBe(DEFAULT_BUDGET_MS);
    expect(DEFAULT_BUDGET_MS).toBe(1500);
  });
  it.each([0, -1, 1.5, '1500', 600_001])('refuses %j', (value) => {
    expect(() => parseBudget(value)).toThrow(/whole number of milliseconds from 1 to 600000/);
  });
});

describe('languageIdFor', () => {
  it('takes the config, else the extension, else plaintext', () => {
    expect(languageIdFor({ languageId: 'vue' }, 'a.ts')).toBe('vue');
    expect(languageIdFor({}, 'src/a.tsx')).toBe('typescriptreact');
    expect(languageIdFor({}, 'x/b.PY')).toBe('python');
    expect(languageIdFor({}, 'Makefile')).toBe('plaintext');
  });
});
