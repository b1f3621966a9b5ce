import { describe, expect, it } from 'vitest';
import { makeWorkspace, readAll } from './workspace-fixture.js';

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every subschema of a JSON Schema with where it is, the keywords that hold data (enum, default) left out. */
function* subschemas(schema: Schema, at = '#'): Generator<[string, Schema]> {
  yield [at, schema];
  for (const [key, value] of Object.entries(schema)) {
    if (['properties', 'patternProperties', '$defs', 'definitions'].includes(key) && isObject(value)) {
      for (const [name, sub] of Object.entries(value)) {
        if (isObject(sub)) yield* subschemas(sub, `${at}/${key}/${name}`);
      }
    } else if (['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'].includes(key) && Array.isArray(value)) {
      for (const [index, sub] of value.entries()) {
        if (isObject(sub)) yield* subschemas(sub, `${at}/${key}/${index}`);
      }
    } else if (!['enum', 'const', 'default', 'examples'].includes(key) && isObject(value)) {
      yield* subschemas(value, `${at}/${key}`);
    }
  }
}

describe('tool definitions', () => {
  for (const mode of ['apply', 'preview'] as const) {
    it(`${mode} mode: every inputSchema is a plain object schema any model API accepts`, async () => {
      const ws = await makeWorkspace();
      const { definitions } = ws.tools({ mode });
      expect(definitions.length).toBeGreaterThan(0);
      for (const { name, inputSchema } of definitions) {
        // What the Anthropic, OpenAI and Gemini tool APIs and MCP clients take at the top.
        expect(inputSchema.type, name).toBe('object');
        expect(isObject(inputSchema.properties), name).toBe(true);
        for (const key of ['$ref', '$schema', 'anyOf', 'oneOf', 'allOf', 'not', 'if', 'enum']) {
          expect(inputSchema, `${name} has ${key} at the top`).not.toHaveProperty(key);
        }
        for (const [where, sub] of subschemas(inputSchema)) {
          // A draft-7 tuple (`items: [...]`) or a 2020-12 one (`prefixItems`) is refused by OpenAI and Gemini.
          expect(Array.isArray(sub.items), `${name} ${where}: tuple items`).toBe(false);
          expect(sub, `${name} ${where}`).not.toHaveProperty('prefixItems');
          expect(sub, `${name} ${where}`).not.toHaveProperty('additionalItems');
        }
        // zod's ±MAX_SAFE_INTEGER bounds on integers tell a model nothing.
        expect(JSON.stringify(inputSchema), name).not.toContain(String(Number.MAX_SAFE_INTEGER));
      }
    });
  }

  it("edit_lines' range is an array of exactly two whole numbers", async () => {
    const ws = await makeWorkspace();
    const editLines = ws.tools().definitions.find((definition) => definition.name === 'edit_lines')!;
    expect(editLines.inputSchema).toMatchObject({
      properties: {
        edits: {
          items: {
            properties: { range: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2 } },
          },
        },
      },
    });
  });

  it('edit_lines still accepts a [start, end] range and refuses other shapes with one clear message', async () => {
    const ws = await makeWorkspace({ 'a.txt': 'one\ntwo\nthree\n' });
    const tools = ws.tools();
    await readAll(tools, 'a.txt');
    const edited = await tools.execute('edit_lines', {
      file_path: 'a.txt',
      edits: [{ range: [2, 3], replacement: 'TWO\n' }],
    });
    expect(edited.ok).toBe(true);
    expect(await ws.text('a.txt')).toBe('one\nTWO\nthree\n');
    for (const range of [[1], [1, 2, 3], '1-2', { start: 1, end: 2 }]) {
      const refused = await tools.execute('edit_lines', {
        file_path: 'a.txt',
        edits: [{ range, replacement: 'x\n' }],
      });
      expect(refused).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
      const message = refused.message.match(/range must be \[start, end\], two line numbers/g);
      expect(message, JSON.stringify(range)).toHaveLength(1);
    }
    expect(await ws.text('a.txt')).toBe('one\nTWO\nthree\n');
  });
});
