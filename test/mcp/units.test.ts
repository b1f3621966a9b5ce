// The MCP layer's pure parts, without a process: mode choice, prompt text, answers, roots, flags (HTTP checks: http-guard.test.ts).

import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDuration, parseSize } from '../../src/cli/commands/mcp.js';
import { chooseApprovalMode, supportsFormElicitation } from '../../src/mcp/approval-mode.js';
import {
  decisionFromAnswer,
  elicitationApprover,
  MAX_PROMPT_DIFF_LINES,
  promptMessage,
  tooLongForPrompt,
} from '../../src/mcp/elicit.js';
import { narrowRoots } from '../../src/mcp/roots.js';
import { oneFileRequest } from '../one-file-request.js';
import { tempFolder } from '../temp-folder.js';

describe('text a person reads in the client (issue #13)', () => {
  it('the approval prompt carries no raw ESC, bidi override or other invisible character', () => {
    const request = oneFileRequest({
      tool: 'edit_file',
      path: 'src/\u202eevil.ts',
      kind: 'modify',
      diff: { hunks: [], added: 1, removed: 1, identical: false },
      unifiedDiff: '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-ok\n+\x1b[2Kadmin\u202e txt.exe\u200e\u{e0041}\n',
      stats: { added: 1, removed: 1 },
      note: 'a note with \x1b[31m colour',
    });
    const message = promptMessage(request);
    expect(message).not.toMatch(/[\x1b\u202e\u200e\u{e0041}]/u);
    expect(message).toContain('+␛[2Kadmin<U+202E> txt.exe<U+200E><U+E0041>');
    expect(message).toContain('src/<U+202E>evil.ts');
    expect(message).toContain('a note with ␛[31m colour');
  });
});

describe('approval mode', () => {
  it('reads the elicitation capability in both spellings', () => {
    expect(supportsFormElicitation({ elicitation: {} })).toBe(true);
    expect(supportsFormElicitation({ elicitation: { form: {} } })).toBe(true);
    expect(supportsFormElicitation({ elicitation: { url: {} } })).toBe(false);
    expect(supportsFormElicitation({})).toBe(false);
    expect(supportsFormElicitation(undefined)).toBe(false);
  });

  it('auto-detect picks elicit or preview; explicit elicit never falls back', () => {
    expect(chooseApprovalMode('auto-detect', { elicitation: {} }).mode).toBe('elicit');
    expect(chooseApprovalMode('auto-detect', {}).mode).toBe('preview');
    expect(chooseApprovalMode('elicit', {})).toMatchObject({ mode: 'elicit', unavailable: true });
    expect(chooseApprovalMode('policy', { elicitation: {} })).toMatchObject({
      mode: 'policy',
      unavailable: false,
    });
    // The web review page asks the person whatever the client supports.
    expect(chooseApprovalMode('web', {})).toMatchObject({ mode: 'web', unavailable: false });
  });
});

describe('elicitation prompt', () => {
  const fields = {
    tool: 'edit_file',
    path: 'src/a.ts',
    kind: 'modify' as const,
    diff: { hunks: [], added: 1, removed: 2, identical: false },
    unifiedDiff: '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1 @@\n-a\n-b\n+c\n',
    stats: { added: 1, removed: 2 },
  };
  const request = oneFileRequest(fields);

  it('carries the path, the counts and the diff', () => {
    expect(promptMessage(request)).toBe(
      `edit_file wants to modify src/a.ts (+1 -2)\n\n${request.unifiedDiff.trimEnd()}`,
    );
  });

  it('carries the note, and every file of a change set with its own note', () => {
    const note = 'The diff shows only part of this change (300 places in 40 MB).';
    expect(promptMessage(oneFileRequest({ ...fields, note }))).toBe(
      `edit_file wants to modify src/a.ts (+1 -2)\n\n${note}\n\n${request.unifiedDiff.trimEnd()}`,
    );
    const { tool: _tool, ...first } = fields;
    const second = { ...first, path: 'src/b.ts', unifiedDiff: '--- a/src/b.ts\n+++ b/src/b.ts\n', note: 'B' };
    const message = promptMessage({ tool: 'edit_file', files: [first, second] });
    expect(message).toContain('edit_file wants to change 2 files (+2 -4)');
    expect(message).toContain('src/b.ts (modify, +1 -2): B');
    expect(message).toContain('+++ b/src/b.ts');
    expect(message).toContain('+c');
  });

  it('never cuts a diff: one longer than the form carries is refused without asking, saying to split it', async () => {
    // 200 one-line fixes, then the payload at place 201: the form would have shown only the fixes.
    const lines = Array.from({ length: 200 }, (_, i) => `-teh ${i}\n+the ${i}`);
    lines.push('-safe()\n+payload()');
    const long = oneFileRequest({ ...fields, unifiedDiff: `${lines.join('\n')}\n` });
    expect(tooLongForPrompt(long)).toEqual({ lines: 402, chars: expect.any(Number) });
    expect(tooLongForPrompt(request)).toBeNull();
    let asked = 0;
    const approver = elicitationApprover(async () => {
      asked++;
      return { action: 'accept', content: { decision: 'Allow once' } };
    }, 1000);
    await expect(approver(long)).rejects.toMatchObject({
      code: 'TOO_LARGE',
      details: { reason: 'diff-too-long', lines: 402 },
    });
    await expect(approver(long)).rejects.toThrow(
      new RegExp(`more than the approval form shows \\(${MAX_PROMPT_DIFF_LINES} lines.*Split it`),
    );
    expect(asked).toBe(0);
    expect(await approver(request)).toBe('once');
    expect(asked).toBe(1);
  });

  it('maps every answer to a decision; only an explicit allow allows', () => {
    const accept = (content: Record<string, string>) =>
      decisionFromAnswer({ action: 'accept', content }, 'modify');
    expect(accept({ decision: 'Allow once' })).toBe('once');
    expect(accept({ decision: 'Allow this file for the session' })).toBe('file');
    expect(accept({ decision: 'Allow all edits this session' })).toBe('all');
    expect(accept({ decision: 'Deny' })).toBe('deny');
    expect(accept({ decision: 'Deny', reason: ' not now ' })).toEqual({ deny: 'not now' });
    expect(accept({})).toMatchObject({ deny: expect.any(String) });
    expect(accept({ decision: 'Allow reading this file for the session' })).toMatchObject({
      deny: expect.any(String),
    });
    expect(decisionFromAnswer({ action: 'decline' }, 'modify')).toBe('deny');
    expect(decisionFromAnswer({ action: 'cancel' }, 'modify')).toMatchObject({
      deny: expect.stringContaining('dismissed'),
    });
    expect(
      decisionFromAnswer(
        { action: 'accept', content: { decision: 'Allow reading this file for the session' } },
        'read',
      ),
    ).toBe('file');
  });
});

describe('narrowRoots', () => {
  const base = tempFolder('editgate-roots-');
  const root = join(base, 'root');
  mkdirSync(join(root, 'sub'), { recursive: true });
  mkdirSync(join(base, 'elsewhere'));
  symlinkSync(join(base, 'elsewhere'), join(root, 'link'));
  const uri = (path: string) => ({ uri: pathToFileURL(path).href });

  it('keeps client roots inside, shrinks client roots around, drops the rest', async () => {
    expect((await narrowRoots([root], [uri(join(root, 'sub'))])).roots).toEqual([join(root, 'sub')]);
    expect((await narrowRoots([root], [uri(base)])).roots).toEqual([root]);
    const out = await narrowRoots(
      [root],
      [uri(join(base, 'elsewhere')), uri(join(base, 'missing')), { uri: 'x:y' }],
    );
    expect(out.roots).toEqual([]);
    expect(out.ignored).toHaveLength(3);
  });

  it('compares real paths: a link inside the root to a folder outside does not count as inside', async () => {
    const out = await narrowRoots([root], [uri(join(root, 'link'))]);
    expect(out.roots).toEqual([]);
  });
});

describe('command-line units', () => {
  it('parses durations and sizes', () => {
    expect(parseDuration('1s')).toBe(1000);
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('250')).toBe(250);
    expect(parseDuration('0s')).toBeUndefined();
    expect(parseDuration('soon')).toBeUndefined();
    expect(parseSize('64kb')).toBe(65_536);
    expect(parseSize('8MB')).toBe(8 * 1024 * 1024);
    expect(parseSize('-1')).toBeUndefined();
  });
});
