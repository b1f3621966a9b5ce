/**
 * Tolerant steps that accept old text at one place only (blank-lines, template-literal escapes) are judged
 * over the whole file on the streaming path too. The streaming path searches a block of lines at a time;
 * judged per block, two places in blocks far apart each looked alone, and the streaming path edited one of
 * them where the in-memory path refused (found by the equivalence property test).
 */
import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../../src/tools/result.js';
import { makeWorkspace } from '../../tools/workspace-fixture.js';

const filler = 'filler line\n'.repeat(6);

async function bothPaths(text: string, edit: { old_string: string; new_string: string }) {
  const results: { outcome: string; bytes: string }[] = [];
  for (const streamThreshold of [undefined, 1]) {
    const workspace = await makeWorkspace({ 'f.txt': text });
    const tools = workspace.tools(streamThreshold ? { streamThreshold, streamChunkSize: 4 } : {});
    await tools.execute('read_file', { file_path: 'f.txt' });
    const result: ToolResult = await tools.execute('edit_file', { file_path: 'f.txt', ...edit });
    results.push({
      outcome: result.ok ? `ok ${(result.details.tiers as string[] | undefined)?.join(',')}` : result.code,
      bytes: (await workspace.bytes('f.txt')).toString('utf8'),
    });
  }
  return { memory: results[0]!, streamed: results[1]! };
}

describe('one-place tolerant steps on the streaming path', () => {
  it('refuse blank-lines old text whose core is at two far places, as in memory', async () => {
    const text = `x one\n${filler}x two\n`;
    const { memory, streamed } = await bothPaths(text, { old_string: '  \nx', new_string: '' });
    expect(memory).toEqual({ outcome: 'NOT_FOUND', bytes: text });
    expect(streamed).toEqual(memory);
  });

  it('accept it where the core is at one place, as in memory', async () => {
    const text = `x one\n${filler}y two\n`;
    const { memory, streamed } = await bothPaths(text, { old_string: '\n\nx one\n', new_string: 'z one\n' });
    expect(memory).toEqual({ outcome: 'ok blank-lines', bytes: `z one\n${filler}y two\n` });
    expect(streamed).toEqual(memory);
  });

  it('refuse template-escaped old text found at two far places, and accept it at one', async () => {
    // What the model sent: the template literal with its `${` written escaped, as \${.
    const escapedOld = ['`\\$', '{name}!`'].join('');
    const twice = `const a = \`\${name}!\`;\n${filler}const b = \`\${name}!\`;\n`;
    const refused = await bothPaths(twice, { old_string: escapedOld, new_string: '`hi`' });
    expect(refused.memory.outcome).not.toMatch(/^ok/);
    expect(refused.streamed).toEqual(refused.memory);

    const once = `const a = \`\${name}!\`;\n${filler}`;
    const accepted = await bothPaths(once, { old_string: escapedOld, new_string: '`hi`' });
    expect(accepted.memory).toEqual({ outcome: 'ok unescaped', bytes: `const a = \`hi\`;\n${filler}` });
    expect(accepted.streamed).toEqual(accepted.memory);
  });
});
