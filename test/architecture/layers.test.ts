/**
 * The layers of ARCHITECTURE.md, enforced: every import in src/ points down the table (or stays in its own
 * folder). core <- workspace <- gate <- tools <- {adapters, terminal, mcp, web, proxy} <- agent <- cli; terminal
 * takes only core and gate's types; agent does not take web or mcp; front ends of one rank never import
 * each other. A folder missing from the table fails too: a new layer must be placed before it is used.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/** Rank of each folder under src/ (src/index.ts, the library's face, ranks with the front ends). */
const RANK: Record<string, number> = {
  core: 0,
  workspace: 1,
  gate: 2,
  tools: 3,
  adapters: 4,
  terminal: 4,
  mcp: 4,
  web: 4,
  proxy: 4,
  hooks: 4,
  'index.ts': 4,
  agent: 5,
  cli: 6,
};

/** Narrower rules than the ranks give. */
const ONLY: Record<string, (target: string, typeOnly: boolean) => boolean> = {
  // The terminal renders what the gate asks: gate's types, and core's pure text work.
  terminal: (target, typeOnly) => target === 'core' || (target === 'gate' && typeOnly),
  agent: (target) => target !== 'web' && target !== 'mcp' && target !== 'proxy',
  // Another server writes, the gate settles it (gate/settle.ts): nothing under the gate is the proxy's.
  proxy: (target) => target !== 'workspace',
  // The agent's own tool writes, the gate settles it; the hooks keep their approvals in the state folder.
  hooks: (target) => target !== 'workspace',
};

/**
 * The modules that write a file and record it for undo: only the gate (which settles every write, its own and
 * others') and the workspace may import them. A front end that wrote or recorded by itself would skip the
 * guard, the root, the audit line, the hooks or history (the chat's /undo once did).
 */
const COMMIT_AND_HISTORY = ['workspace/commit', 'workspace/history', 'gate/commit'];
const MAY_COMMIT = new Set(['gate', 'workspace']);

interface ImportEdge {
  /** Paths relative to src/, '/'-separated. */
  from: string;
  to: string;
  typeOnly: boolean;
}

function layerOf(path: string): string {
  return path.split('/')[0]!;
}

/** Why an import breaks the layers, or null when it is allowed. */
function violation(edge: ImportEdge): string | null {
  const source = layerOf(edge.from);
  const target = layerOf(edge.to);
  const module = edge.to.replace(/\.(js|ts)$/, '');
  if (COMMIT_AND_HISTORY.includes(module) && !MAY_COMMIT.has(source))
    return `only gate/ and workspace/ import ${module} (a write goes through the gate, which settles it)`;
  if (source === target) return null;
  const sourceRank = RANK[source];
  const targetRank = RANK[target];
  if (sourceRank === undefined) return `${source}/ is not in the layer table`;
  if (targetRank === undefined) return `${target}/ is not in the layer table`;
  if (targetRank > sourceRank)
    return `${source} (rank ${sourceRank}) imports ${target} (rank ${targetRank}), a higher layer`;
  if (targetRank === sourceRank)
    return `${source} and ${target} are front ends of one rank: what they share moves down`;
  const only = ONLY[source];
  if (only && !only(target, edge.typeOnly)) {
    return `${source} may not import ${target}${target === 'gate' ? ' (only its types)' : ''}`;
  }
  return null;
}

const IMPORT =
  /(?:^|[;\n])\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every relative import of a file (static, re-export or dynamic), resolved to a path under src/. */
function importsOf(file: string, text: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const from = relative(SRC, file).split(sep).join('/');
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[3] ?? match[4]!;
    if (!specifier.startsWith('.')) continue;
    const target = relative(SRC, resolve(file, '..', specifier))
      .split(sep)
      .join('/');
    edges.push({ from, to: target, typeOnly: Boolean(match[2]) });
  }
  return edges;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('layers', () => {
  it('every import in src/ points down the layer table', () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(50);
    const problems: string[] = [];
    let edges = 0;
    for (const file of files) {
      for (const edge of importsOf(file, readFileSync(file, 'utf8'))) {
        edges++;
        const why = violation(edge);
        if (why) problems.push(`${edge.from} -> ${edge.to}: ${why}`);
      }
    }
    expect(edges).toBeGreaterThan(200);
    expect(problems).toEqual([]);
  });

  it('the rule refuses what the table forbids', () => {
    const edge = (from: string, to: string, typeOnly = false) => violation({ from, to, typeOnly });
    expect(edge('core/edit.ts', 'core/match.ts')).toBeNull();
    expect(edge('gate/gate.ts', 'workspace/files.ts')).toBeNull();
    expect(edge('core/edit.ts', 'workspace/files.ts')).toMatch(/higher layer/);
    expect(edge('workspace/files.ts', 'gate/gate.ts')).toMatch(/higher layer/);
    expect(edge('mcp/session-server.ts', 'terminal/prompt.ts')).toMatch(/one rank/);
    expect(edge('tools/index.ts', 'cli/main.ts')).toMatch(/higher layer/);
    expect(edge('terminal/preview.ts', 'gate/approval.ts', true)).toBeNull();
    expect(edge('terminal/preview.ts', 'gate/approval.ts', false)).toMatch(/may not import gate/);
    expect(edge('terminal/progress-bar.ts', 'workspace/stream/index.ts', true)).toMatch(/may not import/);
    expect(edge('agent/loop.ts', 'web/server.ts')).toMatch(/may not import web/);
    expect(edge('agent/loop.ts', 'adapters/ai-sdk.ts')).toBeNull();
    expect(edge('newlayer/x.ts', 'core/errors.ts')).toMatch(/not in the layer table/);
    expect(edge('agent/session/change-log.ts', 'workspace/commit.js')).toMatch(/only gate\/ and workspace\//);
    expect(edge('proxy/write-gate.ts', 'workspace/history.js', true)).toMatch(/only gate\/ and workspace\//);
    expect(edge('tools/messages.ts', 'gate/commit.js')).toMatch(/only gate\/ and workspace\//);
    expect(edge('gate/settle.ts', 'workspace/history.js')).toBeNull();
    expect(edge('proxy/write-gate.ts', 'workspace/guard.js', true)).toMatch(/may not import workspace/);
    expect(edge('proxy/write-gate.ts', 'gate/open-gate.js')).toBeNull();
    expect(edge('workspace/workspace.ts', 'workspace/commit.js')).toBeNull();
  });

  it('reads static, type-only, re-exported and dynamic imports', () => {
    const file = join(SRC, 'gate', 'x.ts');
    const edges = importsOf(
      file,
      [
        "import { a } from '../core/a.js';",
        "import type { B } from '../workspace/b.js';",
        "export { c } from './c.js';",
        "export type { D } from '../core/d.js';",
        'const e = await import("../tools/e.js");',
        "import { z } from 'zod';",
      ].join('\n'),
    );
    expect(edges).toEqual([
      { from: 'gate/x.ts', to: 'core/a.js', typeOnly: false },
      { from: 'gate/x.ts', to: 'workspace/b.js', typeOnly: true },
      { from: 'gate/x.ts', to: 'gate/c.js', typeOnly: false },
      { from: 'gate/x.ts', to: 'core/d.js', typeOnly: true },
      { from: 'gate/x.ts', to: 'tools/e.js', typeOnly: false },
    ]);
  });
});
