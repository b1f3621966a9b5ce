/**
 * The card: arguments laid out for a person, one per line and nested by indentation, with nothing in them
 * able to act on a terminal (escape sequences, bidirectional overrides, carriage returns); a card too long
 * for a question is never cut but refused (TOO_LARGE).
 */
import { describe, expect, it } from 'vitest';
import { cardText, cardTooLongError, layOutArguments } from '../../src/proxy/card.js';
import { capLines, visibleText } from '../../src/proxy/visible-text.js';

describe('layOutArguments', () => {
  it('scalars inline, nested objects and lists indented, multi-line text as a block', () => {
    expect(
      layOutArguments({
        env: 'prod',
        replicas: 3,
        dry: false,
        nothing: null,
        tags: ['a', { b: 1 }],
        limits: { cpu: '2', empty: {} },
        script: 'set -e\ndeploy',
      }),
    ).toBe(
      [
        'env: "prod"',
        'replicas: 3',
        'dry: false',
        'nothing: null',
        'tags:',
        '  - "a"',
        '  -',
        '    b: 1',
        'limits:',
        '  cpu: "2"',
        '  empty: {}',
        'script: (text, 2 lines)',
        '  │ set -e',
        '  │ deploy',
      ].join('\n'),
    );
    expect(layOutArguments({})).toBe('(no arguments)');
  });

  it('shows control and invisible characters instead of passing them to the screen, in keys too', () => {
    const text = layOutArguments({ 'k\u001b[2J': 'a\rb', note: 'x\n\u202egnp.exe\u0007' });
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u202e]/);
    expect(text).toContain('k␛[2J: "a\\rb"');
    expect(text).toContain('│ <U+202E>gnp.exe␇');
  });
});

describe('cardText', () => {
  it('names the server and the tool, says why there is no diff, and never cuts the arguments', () => {
    const request = {
      server: 'docs',
      tool: 'render',
      title: 'Render site',
      arguments: { pages: Array.from({ length: 79 }, (_, i) => `page ${i}`) },
      basis: 'the server does not mark it read-only',
      sessionGrant: true,
    };
    const text = cardText(request);
    expect(text.split('\n').slice(0, 3)).toEqual([
      'docs wants to run render (Render site).',
      'editgate cannot show what it changes as a diff.',
      'Why asked: the server does not mark it read-only.',
    ]);
    expect(text).toContain('    - "page 78"');
    expect(cardTooLongError(request)).toBeUndefined();
  });

  it('a card of more than 80 lines or 8000 characters is too long to ask about (TOO_LARGE)', () => {
    const base = { server: 'docs', tool: 'render', basis: 'b', sessionGrant: true };
    const lines = cardTooLongError({
      ...base,
      arguments: { pages: Array.from({ length: 80 }, (_, i) => i) },
    });
    expect(lines?.code).toBe('TOO_LARGE');
    expect(lines?.message).toContain('81 lines');
    expect(cardTooLongError({ ...base, arguments: { text: 'x'.repeat(8001) } })?.code).toBe('TOO_LARGE');
  });
});

describe('visibleText and capLines', () => {
  it('keeps newlines and tabs unless asked for one line', () => {
    expect(visibleText('a\tb\nc\u0085')).toBe('a\tb\nc<U+0085>');
    expect(visibleText('a\tb\nc', { oneLine: true })).toBe('a␉b␊c');
  });

  it('marks the hidden characters every other screen marks (core/invisible.ts: one rule)', () => {
    // Each of these passed through the proxy's own rule unmarked before it used core's.
    const hidden = {
      tag: '\u{E0041}\u{E0042}',
      softHyphen: '\u00ad',
      hangulFiller: '\u3164\u115f\u1160\uffa0',
      variationSelector: '\ufe01\u{E0100}',
      deprecatedFormat: '\u206a\u206f',
    };
    expect(visibleText(`a${hidden.tag}b`)).toBe('a<U+E0041><U+E0042>b');
    expect(visibleText(`pass${hidden.softHyphen}word`)).toBe('pass<U+00AD>word');
    expect(visibleText(`x${hidden.hangulFiller}y`)).toBe('x<U+3164><U+115F><U+1160><U+FFA0>y');
    expect(visibleText(`x${hidden.variationSelector}y`)).toBe('x<U+FE01><U+E0100>y');
    expect(visibleText(`x${hidden.deprecatedFormat}y`, { oneLine: true })).toBe('x<U+206A><U+206F>y');
    // What made the proxy's rule its own still holds: escapes, bidi overrides, a lone CR.
    expect(visibleText('\u001b[2J\u202eevil\r', { oneLine: true })).toBe('␛[2J<U+202E>evil␍');
    // An emoji's joiner and presentation selector are what make it, as on every other screen.
    expect(visibleText('👩\u200d💻 ❤\ufe0f')).toBe('👩\u200d💻 ❤\ufe0f');
  });

  it('cuts at a line boundary, or inside one line that alone is too long', () => {
    expect(capLines('1\n2\n3\n', 2, 100)).toEqual({ text: '1\n2', omittedLines: 1 });
    expect(capLines('abcdef\nx', 5, 3)).toEqual({ text: 'abc…', omittedLines: 1 });
  });
});
