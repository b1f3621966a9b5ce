import { describe, expect, it } from 'vitest';
import { portableSchema } from '../../src/adapters/portable-schema.js';
import { greetWorkspace } from './scenario.js';

describe('portableSchema', () => {
  it('turns a draft-7 tuple into one item schema and keeps its length', () => {
    const tuple = {
      type: 'array',
      items: [{ type: 'integer' }, { type: 'integer' }],
      additionalItems: false,
      minItems: 2,
      maxItems: 2,
    };
    expect(portableSchema(tuple)).toEqual({
      type: 'array',
      items: { type: 'integer' },
      minItems: 2,
      maxItems: 2,
    });
    expect(portableSchema({ type: 'array', items: [{ type: 'string' }], additionalItems: false })).toEqual({
      type: 'array',
      items: { type: 'string' },
      maxItems: 1,
    });
  });

  it('uses anyOf when the positions differ, a rest schema included', () => {
    const mixed = {
      type: 'array',
      items: [{ type: 'string' }, { type: 'integer' }],
      additionalItems: { type: 'null' },
    };
    expect(portableSchema(mixed)).toEqual({
      type: 'array',
      items: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
    });
  });

  it('drops only the safe-integer bounds zod adds, deep inside properties and anyOf too', () => {
    const schema = {
      type: 'object',
      properties: {
        line: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
        either: { anyOf: [{ type: 'integer', minimum: Number.MIN_SAFE_INTEGER }, { type: 'string' }] },
      },
    };
    expect(portableSchema(schema)).toEqual({
      type: 'object',
      properties: {
        line: { type: 'integer', minimum: 1 },
        either: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
      },
    });
  });

  it('leaves data alone: default, enum, examples and a property named items', () => {
    const schema = {
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'string' }, default: ['a'] } },
      default: { items: [1, 2], maximum: Number.MAX_SAFE_INTEGER },
      examples: [{ items: [3] }],
      enum: [{ items: [4] }],
    };
    expect(portableSchema(schema)).toEqual(schema);
  });

  it('makes every editgate tool schema portable without touching the definitions', async () => {
    const { tools } = await greetWorkspace();
    const before = JSON.stringify(tools.definitions);
    for (const definition of tools.definitions) {
      const portable = JSON.stringify(portableSchema(definition.inputSchema));
      expect(portable).not.toMatch(/"items":\[/);
      expect(portable).not.toContain(String(Number.MAX_SAFE_INTEGER));
    }
    expect(JSON.stringify(tools.definitions)).toBe(before);
  });
});
