import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { languageForPath, loadHighlighter, spansFromHtml } from '../../src/core/highlight.js';

describe('languageForPath', () => {
  it('maps common extensions and file names', () => {
    expect(languageForPath('src/app.ts')).toBe('typescript');
    expect(languageForPath('a/b/view.TSX')).toBe('typescript');
    expect(languageForPath('main.py')).toBe('python');
    expect(languageForPath('Cargo.toml')).toBe('ini');
    expect(languageForPath('docker/Dockerfile')).toBe('dockerfile');
    expect(languageForPath('README')).toBeUndefined();
    expect(languageForPath('.bashrc')).toBeUndefined();
    expect(languageForPath('data.xyz')).toBeUndefined();
  });
});

describe('loadHighlighter', () => {
  it('gives per-line scopes, constructs spanning lines included', async () => {
    const highlight = await loadHighlighter('x.ts');
    const [first, second, third] = highlight!(['const a = "x<y";', '/* open', 'still comment */ return 1;']);
    expect(first).toEqual([
      { start: 0, end: 5, scope: 'keyword' },
      { start: 10, end: 15, scope: 'string' },
    ]);
    expect(second).toEqual([{ start: 0, end: 7, scope: 'comment' }]);
    expect(third![0]).toEqual({ start: 0, end: 16, scope: 'comment' });
  });

  it('is undefined for an unknown type', async () => {
    expect(await loadHighlighter('notes.unknownext')).toBeUndefined();
  });

  it('is imported lazily: no static import of highlight.js where diffs are shown', () => {
    for (const file of [
      'core/highlight.ts',
      'terminal/diff-view.ts',
      'terminal/preview.ts',
      'terminal/prompt.ts',
    ]) {
      const source = readFileSync(new URL(`../../src/${file}`, import.meta.url), 'utf8');
      expect(source).not.toMatch(/^import (?!type)[^;]*from 'highlight\.js/m);
    }
  });
});

describe('spansFromHtml', () => {
  it('decodes entities and nests scopes', () => {
    expect(spansFromHtml('<span class="hljs-string">&quot;a&amp;b&quot;</span>\nx')).toEqual([
      [{ start: 0, end: 5, scope: 'string' }],
      [],
    ]);
    expect(spansFromHtml('<span class="hljs-title function_">f</span>')).toEqual([
      [{ start: 0, end: 1, scope: 'function' }],
    ]);
  });
});
