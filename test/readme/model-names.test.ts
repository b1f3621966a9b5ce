import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../built-cli.js';
import { allDocs } from './blocks.js';

// Model names in the README go stale (a model retires and the example stops working): each Anthropic or
// OpenAI name the README uses must be in the model list its provider's AI SDK package ships, so updating
// the SDK past a retirement fails here and the README moves on to a current name.

/** The string literals of a model id union type in a package's .d.ts (`type X = 'a' | 'b' | (string & {})`). */
function shippedIds(pkg: string, typeName: string): Set<string> {
  const types = readFileSync(join(REPO, 'node_modules', pkg, 'dist', 'index.d.ts'), 'utf8');
  const union = new RegExp(`type ${typeName} = ([^;]*);`).exec(types);
  if (!union) throw new Error(`${pkg} no longer declares ${typeName}: find its model id list`);
  return new Set([...union[1]!.matchAll(/'([^']+)'/g)].map((match) => match[1]!));
}

describe('the docs’ model names', () => {
  const anthropic = shippedIds('@ai-sdk/anthropic', 'AnthropicMessagesModelId');
  const openai = new Set([
    ...shippedIds('@ai-sdk/openai', 'OpenAIResponsesModelId'),
    ...shippedIds('@ai-sdk/openai', 'OpenAIChatModelId'),
  ]);
  const text = allDocs();
  const claude = [
    ...new Set(
      [...text.matchAll(/\bclaude-(?:opus|sonnet|haiku|instant|\d)[a-z0-9.-]*[a-z0-9]/g)].map(
        (match) => match[0],
      ),
    ),
  ];
  const gpt = [...new Set([...text.matchAll(/\bgpt-[a-z0-9.-]*[a-z0-9]/g)].map((match) => match[0]))];

  it('finds the lists and the names (a test that reads nothing would pass anything)', () => {
    expect(anthropic.size).toBeGreaterThan(5);
    expect(openai.size).toBeGreaterThan(5);
    expect(claude.length).toBeGreaterThan(0);
    expect(gpt.length).toBeGreaterThan(0);
  });

  it('are models the providers’ SDKs list today', () => {
    expect(claude.filter((name) => !anthropic.has(name))).toEqual([]);
    expect(gpt.filter((name) => !openai.has(name))).toEqual([]);
  });

  it('are not the one that retires on 2026-11-30', () => {
    expect(claude).not.toContain('claude-sonnet-4-5');
  });
});
