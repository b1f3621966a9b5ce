import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO } from '../built-cli.js';

// The package as a stranger gets it: `npm pack`, installed from the tarball into a fresh app (its
// dependencies from the registry; the repository's own install has put them in npm's cache, so
// --prefer-offline rarely needs the network), then used the way the README says: every subpath export
// imported, a consumer file type-checked with skipLibCheck false under the two module resolutions
// TypeScript projects use, and the CLI run through npx (the bin a global install of the same tarball
// links onto PATH; test/readme runs npm link, the other way the README puts editgate on PATH).

const run = promisify(execFile);
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');

/** The SDKs a consumer of the adapters installs, at the versions the repository tests with. */
const PEERS = ['ai', 'openai', '@anthropic-ai/sdk'];

interface Manifest {
  name: string;
  version: string;
  bin: Record<string, string>;
  exports: Record<string, unknown>;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

let base: string;
let app: string;
let tarball: string;
let packed: string[];
let installOutput: string;
let installed: string;
let manifest: Manifest;

function versionInRepository(name: string): string {
  const path = join(REPO, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
}

/** npm without the settings of the npm that may be running these tests (npm test sets npm_config_*). */
function npm(args: string[], cwd: string, env: Record<string, string> = {}) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')),
  );
  return run('npm', args, { cwd, env: { ...clean, ...env }, maxBuffer: 64 * 2 ** 20 });
}

beforeAll(async () => {
  await ensureBuilt();
  base = mkdtempSync(join(tmpdir(), 'editgate-consumer-'));
  // dist/ is built (ensureBuilt); prepack would rebuild it in place under the other tests' feet.
  const pack = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', base], REPO);
  const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(base, info!.filename);
  packed = info!.files.map((file) => file.path);

  app = join(base, 'app');
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
  );
  const wanted = [...PEERS, '@types/node'].map((name) => `${name}@${versionInRepository(name)}`);
  // @ai-sdk/provider's types import 'json-schema' without depending on its types: any app that checks
  // the ai package's .d.ts (skipLibCheck false) installs them, with or without editgate.
  wanted.push('@types/json-schema');
  const install = await npm(
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel', 'warn', tarball, ...wanted],
    app,
  );
  installOutput = install.stdout + install.stderr;
  installed = join(app, 'node_modules', 'editgate');
  manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Manifest;
}, 300_000);

// The app's node_modules is tens of thousands of files: on a loaded 2-core machine removing it took over
// the default 30 s hook time (a fresh-clone CI run failed on it, every test having passed).
afterAll(() => {
  if (base) rmSync(base, { recursive: true, force: true });
}, 180_000);

/** Every file under a folder, relative to it. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)));
}

/** The package a bare specifier names ('@scope/name/sub' → '@scope/name'), or undefined for a built-in. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || builtinModules.includes(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) => (match[1] ?? match[2])!);
}

/** The bare packages a module loads at run time, itself or through the modules it imports. */
function packagesReachableFrom(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of importsOf(file)) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
      else {
        const name = packageOf(specifier);
        if (name) packages.add(name);
      }
    }
  };
  visit(entry);
  return packages;
}

describe('the packed package', () => {
  it('holds dist/, README, LICENSE and CHANGELOG; no sources, tests or source maps', () => {
    for (const path of [
      'package.json',
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
      'dist/index.js',
      'dist/cli/main.js',
    ]) {
      expect(packed).toContain(path);
    }
    expect(
      packed.filter((path) => !/^(dist\/|package\.json$|README\.md$|LICENSE$|CHANGELOG\.md$)/.test(path)),
    ).toEqual([]);
    expect(packed.filter((path) => path.endsWith('.map'))).toEqual([]);
    const pointing = filesUnder(join(installed, 'dist')).filter((path) =>
      readFileSync(join(installed, 'dist', path), 'utf8').includes('sourceMappingURL'),
    );
    expect(pointing).toEqual([]);
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toContain('MIT License');
  });

  it('installs without an install-script warning: it has no install-time scripts', () => {
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) {
      expect(manifest.scripts?.[script], script).toBeUndefined();
    }
    expect(installOutput).not.toMatch(/install-scripts|allowScripts|prepare/i);
  });

  it('declares every package its code and its types import: dependencies, or optional peers', () => {
    const dependencies = new Set(Object.keys(manifest.dependencies ?? {}));
    const peers = new Set(Object.keys(manifest.peerDependencies ?? {}));
    const undeclared = new Set<string>();
    for (const path of filesUnder(join(installed, 'dist'))) {
      for (const specifier of importsOf(join(installed, 'dist', path))) {
        const name = specifier.startsWith('.') ? undefined : packageOf(specifier);
        if (name && !dependencies.has(name) && !peers.has(name)) undeclared.add(`${name} (in ${path})`);
      }
    }
    expect([...undeclared]).toEqual([]);
    expect([...peers].sort()).toEqual([...PEERS].sort());
    for (const peer of PEERS) expect(manifest.peerDependenciesMeta?.[peer]?.optional, peer).toBe(true);
  });

  it('loads no optional peer unless its adapter is imported', () => {
    const optional = (entry: string) =>
      [...packagesReachableFrom(join(installed, entry))].filter((name) => PEERS.includes(name));
    expect(optional('dist/index.js')).toEqual([]);
    expect(optional('dist/cli/main.js')).toEqual([]);
    for (const command of readdirSync(join(installed, 'dist/cli/commands')).filter((f) =>
      f.endsWith('.js'),
    )) {
      expect(optional(`dist/cli/commands/${command}`), command).toEqual([]);
    }
    expect(optional('dist/adapters/ai-sdk.js')).toEqual(['ai']);
  });
});

// The slow checks (tsc over every SDK's types, npx) run side by side.
describe.concurrent('a fresh app using the installed package', () => {
  it('imports every subpath export, and the package.json export', async ({ expect }) => {
    const subpaths = Object.keys(manifest.exports).map((key) => key.replace(/^\./, 'editgate'));
    expect(subpaths).toEqual([
      'editgate',
      'editgate/ai-sdk',
      'editgate/anthropic',
      'editgate/openai',
      'editgate/web',
      'editgate/package.json',
    ]);
    const script = [
      'const loaded = {};',
      ...subpaths.map((specifier) =>
        specifier.endsWith('.json')
          ? `loaded[${JSON.stringify(specifier)}] = Object.keys((await import(${JSON.stringify(specifier)}, { with: { type: 'json' } })).default);`
          : `loaded[${JSON.stringify(specifier)}] = Object.keys(await import(${JSON.stringify(specifier)})).sort();`,
      ),
      'console.log(JSON.stringify(loaded));',
    ].join('\n');
    writeFileSync(join(app, 'imports.mjs'), script);
    const { stdout } = await run(process.execPath, ['imports.mjs'], { cwd: app });
    const loaded = JSON.parse(stdout) as Record<string, string[]>;
    expect(loaded.editgate).toEqual(
      expect.arrayContaining(['createEditTools', 'EditgateError', 'TOOL_NAMES']),
    );
    expect(loaded['editgate/ai-sdk']).toContain('aiSdkTools');
    expect(loaded['editgate/anthropic']).toEqual(
      expect.arrayContaining(['anthropicTools', 'runAnthropicToolUses']),
    );
    expect(loaded['editgate/openai']).toEqual(
      expect.arrayContaining([
        'openAIChatTools',
        'runOpenAIChatToolCalls',
        'openAIResponsesTools',
        'runOpenAIResponsesCalls',
      ]),
    );
    expect(loaded['editgate/web']).toEqual(['startReviewServer']);
    expect(loaded['editgate/package.json']).toContain('version');
  });

  it('is ESM only, as the README says: require() is refused, import() works from CommonJS', async ({
    expect,
  }) => {
    writeFileSync(
      join(app, 'commonjs.cjs'),
      [
        'let code;',
        "try { require('editgate'); } catch (error) { code = error.code; }",
        "import('editgate').then((m) => console.log(JSON.stringify({ code, imported: typeof m.createEditTools })));",
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, ['commonjs.cjs'], { cwd: app });
    expect(JSON.parse(stdout)).toEqual({ code: 'ERR_PACKAGE_PATH_NOT_EXPORTED', imported: 'function' });
  });

  it('type-checks with skipLibCheck false under moduleResolution node16 and bundler', async ({ expect }) => {
    writeFileSync(
      join(app, 'consumer.ts'),
      `import Anthropic from '@anthropic-ai/sdk';
import {
  type ApprovalRequest,
  createEditTools,
  type Decision,
  type EditTools,
  type Proposal,
  type ToolResult,
} from 'editgate';
import { aiSdkTools } from 'editgate/ai-sdk';
import { anthropicTools, runAnthropicToolUses } from 'editgate/anthropic';
import { openAIChatTools, openAIResponsesTools, runOpenAIChatToolCalls } from 'editgate/openai';
import type OpenAI from 'openai';

const approve = async (request: ApprovalRequest): Promise<Decision> =>
  request.stats.added > 100 ? { deny: 'too large' } : 'once';
const tools: EditTools = createEditTools({
  root: process.cwd(),
  approve,
  onPreview: (proposal: Proposal) => console.log(proposal.unifiedDiff),
});
const result: ToolResult = await tools.execute('read_file', { file_path: 'package.json' });
const anthropic: Anthropic.Tool[] = anthropicTools(tools);
const chat: OpenAI.Chat.ChatCompletionTool[] = openAIChatTools(tools);
const replies: OpenAI.Chat.ChatCompletionToolMessageParam[] = await runOpenAIChatToolCalls(tools, []);
const answers: Anthropic.ToolResultBlockParam[] = await runAnthropicToolUses(tools, []);
console.log(result.ok, anthropic, chat, replies, answers, openAIResponsesTools(tools), Object.keys(aiSdkTools(tools)));
`,
    );
    const config = (module: string, moduleResolution: string) => ({
      compilerOptions: {
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        target: 'es2022',
        module,
        moduleResolution,
        types: ['node'],
      },
      files: ['consumer.ts'],
    });
    writeFileSync(join(app, 'tsconfig.node16.json'), JSON.stringify(config('node16', 'node16')));
    writeFileSync(join(app, 'tsconfig.bundler.json'), JSON.stringify(config('preserve', 'bundler')));
    const check = (project: string) =>
      run(process.execPath, [TSC, '-p', project], { cwd: app }).then(
        () => '',
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
    const [node16, bundler] = await Promise.all([
      check('tsconfig.node16.json'),
      check('tsconfig.bundler.json'),
    ]);
    expect({ node16, bundler }).toEqual({ node16: '', bundler: '' });
  }, 180_000);

  it('runs the CLI with npx editgate', async ({ expect }) => {
    const help = await run('npx', ['--no-install', 'editgate', '--help'], { cwd: app });
    expect(help.stdout).toContain('Usage: editgate <command>');
  }, 60_000);
});
