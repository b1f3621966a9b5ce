// One suite, every face (#27): each scenario of scenarios.ts runs through execute, editgate apply, the MCP
// server over stdio and the proxy, against the one expectation the scenario states: the files on disk byte
// for byte, the error code, and the last audit line. A face a scenario cannot run says why in the table.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../built-cli.js';
import { FACES, scenarioWorkspace, type Workspace } from './faces.js';
import { type AuditExpectation, type FaceName, SCENARIOS, type Scenario } from './scenarios.js';

beforeAll(ensureBuilt, 120_000);

/** The last audit line, in the part every face must write alike (paths relative to the root). */
function lastAuditLine(ws: Workspace): AuditExpectation | undefined {
  if (!existsSync(ws.audit)) return undefined;
  const lines = readFileSync(ws.audit, 'utf8').trimEnd().split('\n');
  const entry = JSON.parse(lines.at(-1)!) as AuditExpectation & { files?: AuditExpectation['files'] };
  const inRoot = (path: string) => (path.startsWith('/') ? relative(ws.root, path) : path);
  return {
    tool: entry.tool,
    path: inRoot(entry.path),
    kind: entry.kind,
    decision: entry.decision,
    decidedBy: entry.decidedBy,
    ...(entry.code ? { code: entry.code } : {}),
    ...(entry.files
      ? { files: entry.files.map((file) => ({ path: inRoot(file.path), kind: file.kind })) }
      : {}),
  };
}

function filesNow(ws: Workspace, scenario: Scenario): Record<string, Buffer | null> {
  return Object.fromEntries(
    Object.keys(scenario.expect.files).map((name) => {
      const path = join(ws.root, name);
      return [name, existsSync(path) ? readFileSync(path) : null];
    }),
  );
}

function asBytes(expected: Record<string, string | Buffer | null>): Record<string, Buffer | null> {
  return Object.fromEntries(
    Object.entries(expected).map(([name, content]) => [
      name,
      content === null ? null : Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8'),
    ]),
  );
}

const FACE_NAMES = Object.keys(FACES) as FaceName[];

describe.each(SCENARIOS.map((scenario) => [scenario.name, scenario] as const))('%s', (_name, scenario) => {
  const runs = FACE_NAMES.filter((face) => scenario.notFor?.[face] === undefined);
  it.each(runs)('through %s', async (face) => {
    const ws = scenarioWorkspace(scenario);
    const outcome = await FACES[face](scenario, ws);
    expect(outcome.code, outcome.message).toBe(scenario.expect.code);
    expect(outcome.ok).toBe(scenario.expect.code === undefined);
    for (const words of scenario.expect.message?.says ?? []) expect(outcome.message).toContain(words);
    if (scenario.expect.message?.never) expect(outcome.message).not.toMatch(scenario.expect.message.never);
    expect(filesNow(ws, scenario)).toEqual(asBytes(scenario.expect.files));
    expect(lastAuditLine(ws)).toEqual(scenario.expect.audit);
  });
});

describe('the table', () => {
  it('says why for every face a scenario does not run on, and no scenario runs on none', () => {
    for (const scenario of SCENARIOS) {
      for (const reason of Object.values(scenario.notFor ?? {})) expect(reason.length).toBeGreaterThan(20);
      expect(FACE_NAMES.some((face) => scenario.notFor?.[face] === undefined)).toBe(true);
      if (scenario.notFor?.proxy === undefined) expect(scenario.proxyCalls, scenario.name).toBeDefined();
    }
  });
});
