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

  // Exactly what a model sees for each tool: name, title, description, input schema and hints. A change to
  // any of it shows here as a diff of the snapshot file, to be read and accepted on purpose.
  for (const mode of ['apply', 'preview'] as const) {
    it(`${mode} mode: the definitions a model sees`, async () => {
      const ws = await makeWorkspace();
      const { definitions } = ws.tools({ mode });
      await expect(`${JSON.stringify(definitions, null, 2)}\n`).toMatchFileSnapshot(
        `./__snapshots__/definitions.${mode}.json`,
      );
    });
  }

  it('every field of every schema says what it is', async () => {
    const ws = await makeWorkspace();
    for (const { name, inputSchema } of ws.tools({ mode: 'preview' }).definitions) {
      for (const [where, sub] of subschemas(inputSchema)) {
        if (!isObject(sub.properties)) continue;
        for (const [field, schema] of Object.entries(sub.properties)) {
          expect(isObject(schema) && typeof schema.description, `${name} ${where}/${field}`).toBe('string');
          expect(
            ((schema as Schema).description as string).length,
            `${name} ${where}/${field}`,
          ).toBeGreaterThan(10);
        }
      }
    }
  });

  it('descriptions quote the configuration in force, not the defaults', async () => {
    const ws = await makeWorkspace();
    const description = (tools: ReturnType<typeof ws.tools>, name: string) =>
      tools.definitions.find((definition) => definition.name === name)!.description;
    const defaults = ws.tools();
    expect(description(defaults, 'read_file')).toContain('Reads at most 2000 lines by default');
    expect(description(defaults, 'read_file')).toContain('Huge files (32 MB or more)');
    const configured = ws.tools({ readLimit: 500, streamThreshold: 5 << 20 });
    expect(description(configured, 'read_file')).toContain('Reads at most 500 lines by default');
    for (const name of ['read_file', 'write_file', 'multi_edit']) {
      expect(description(configured, name), name).toContain('Huge files (5.0 MB or more)');
      expect(description(configured, name), name).not.toContain('32');
    }
  });
});
