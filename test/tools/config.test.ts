import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_FILE, loadConfig } from '../../src/tools/config.js';
import { tempFolder } from '../temp-folder.js';
import { trustConfig } from '../trusted-config.js';
import { makeWorkspace } from './workspace-fixture.js';

const MiB = 1 << 20;

describe('loadConfig', () => {
  it('is no config when the root has no config file', async () => {
    const ws = await makeWorkspace();
    expect(await loadConfig(ws.root)).toEqual({ config: {}, options: {} });
  });

  it('turns the keys into tool options, paths relative to the config folder', async () => {
    const ws = await makeWorkspace({
      [CONFIG_FILE]: JSON.stringify({
        deny: ['.env'],
        matching: 'exact',
        requireReadBeforeEdit: false,
        readLimit: 500,
        auditLog: 'logs/audit.jsonl',
        streamThreshold: 64 * MiB,
      }),
    });
    const stateDir = tempFolder('editgate-state-');
    trustConfig(join(ws.root, CONFIG_FILE), stateDir);
    const loaded = await loadConfig(ws.root, undefined, { stateDir });
    expect(loaded.path).toBe(join(ws.root, CONFIG_FILE));
    expect(loaded.trust?.trusted).toBe(true);
    expect(loaded.options).toEqual({
      deny: ['.env'],
      matching: 'exact',
      requireReadBeforeEdit: false,
      readLimit: 500,
      auditLog: join(ws.root, 'logs', 'audit.jsonl'),
      streamThreshold: 64 * MiB,
    });
  });

  it('"approve" says where the CLI asks (terminal or web); it is not a tool option; other values are refused', async () => {
    const ws = await makeWorkspace({ [CONFIG_FILE]: JSON.stringify({ approve: 'web' }) });
    const loaded = await loadConfig(ws.root);
    expect(loaded.config.approve).toBe('web');
    expect(loaded.options).toEqual({});
    await ws.put(CONFIG_FILE, JSON.stringify({ approve: 'browser' }));
    await expect(loadConfig(ws.root)).rejects.toThrow(/approve/);
  });

  it('streamThreshold from the config decides which files are streamed', async () => {
    const big = 'x'.repeat(100) + '\n';
    const ws = await makeWorkspace({
      [CONFIG_FILE]: JSON.stringify({ streamThreshold: 4096 }),
      'small.txt': big,
      'big.txt': big.repeat(50),
    });
    const { options } = await loadConfig(ws.root);
    const tools = ws.tools(options);
    const small = await tools.execute('read_file', { file_path: 'small.txt' });
    const huge = await tools.execute('read_file', { file_path: 'big.txt' });
    expect(small.ok && huge.ok).toBe(true);
    expect(small.details.streamed).toBeUndefined();
    expect(huge.details).toMatchObject({ streamed: true, lines: 50 });
    // write_file cannot stream: the configured threshold is what it refuses at.
    const write = await tools.execute('write_file', { file_path: 'big.txt', content: 'new\n' });
    expect(write).toMatchObject({ ok: false, code: 'TOO_LARGE', details: { threshold: 4096 } });
  });

  it.each([
    [0, 'streamThreshold'],
    [1.5, 'streamThreshold'],
    ['32MB', 'streamThreshold'],
    [512 * MiB, 'at most 268435456 bytes (256 MiB)'],
  ])('refuses streamThreshold %j, saying which key', async (value, expected) => {
    const ws = await makeWorkspace({ [CONFIG_FILE]: JSON.stringify({ streamThreshold: value }) });
    await expect(loadConfig(ws.root)).rejects.toThrow(expected);
    await expect(loadConfig(ws.root)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('refuses unknown keys and bad JSON, naming the file', async () => {
    const ws = await makeWorkspace({ [CONFIG_FILE]: JSON.stringify({ streamThreshhold: 4096 }) });
    await expect(loadConfig(ws.root)).rejects.toThrow(/editgate\.config\.json is invalid.*streamThreshhold/);
    await ws.put(CONFIG_FILE, '{ not json');
    await expect(loadConfig(ws.root)).rejects.toThrow(/is not valid JSON/);
  });

  it('refuses a FIFO or a folder in the config file’s place at once, naming it (a FIFO is never waited on)', async () => {
    const ws = await makeWorkspace();
    execFileSync('mkfifo', [ws.path(CONFIG_FILE)]);
    const refused = loadConfig(ws.root);
    await expect(refused).rejects.toThrow(/The config file .*editgate\.config\.json is not a file/);
    await expect(refused).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const other = await makeWorkspace();
    mkdirSync(other.path(CONFIG_FILE));
    await expect(loadConfig(other.root)).rejects.toThrow(/is not a file/);
  });
});
