import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffLines, formatUnifiedDiff } from '../../src/core/diff.js';
import { loadHighlighter } from '../../src/core/highlight.js';
import { type ApprovalRequest, withFirstFileAliases } from '../../src/gate/approval.js';
import {
  EXPAND_LINES,
  expandRows,
  FileView,
  nextPageRow,
  PAGE_LINES,
  plainMessage,
  renderPage,
} from '../../src/web/diff-html.js';
import { htmlText } from '../../src/web/html-text.js';
import { changeHtml, pageHtml, queueHtml } from '../../src/web/page.js';
import { filesOf, type ReviewFile, reviewHash, reviseFiles } from '../../src/web/review-files.js';
import type { ReviewItem } from '../../src/web/review-queue.js';

function fileChange(
  path: string,
  before: string,
  after: string,
  kind: ReviewFile['kind'] = 'modify',
): ReviewFile {
  const diff = diffLines(before, after);
  return {
    path,
    kind,
    diff,
    unifiedDiff: formatUnifiedDiff(diff, { oldPath: kind === 'create' ? '/dev/null' : path, newPath: path }),
    stats: { added: diff.added, removed: diff.removed },
    texts: { before, after },
  };
}

/** A change of `files` on the page; `note`: the first file's. */
function itemOf(files: ReviewFile[], extra: { tool?: string; note?: string } = {}): ReviewItem {
  const [first, ...others] = files;
  const request: ApprovalRequest = withFirstFileAliases({
    tool: extra.tool ?? 'edit_file',
    files: [extra.note ? { ...first!, note: extra.note } : first!, ...others],
  });
  const all = filesOf(request);
  return {
    id: 'abc',
    request,
    files: all,
    hash: reviewHash(request, all),
    source: 'a test',
    createdAt: 0,
    status: 'pending',
  };
}

/** The text a browser would show for some HTML: tags dropped, entities decoded. */
function shownText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Tags in some HTML, by name: markup the renderer made, never markup from the content. */
function tags(html: string): string[] {
  return [...html.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((match) => match[1]!.toLowerCase());
}

const HOSTILE = [
  '<script>window.pwned = 1</script>',
  '</textarea><img src=x onerror="window.pwned=2">',
  '\u202Eevil\u202C and \u2066isolate\u2069',
  '\x1b[31mred\x1b[0m and \x1b]0;title\x07',
  '" onmouseover="x" \' <!-- -->',
];

describe('content from a model or a file is text, never markup', () => {
  it.each(HOSTILE)('%j is escaped, and control or direction characters are shown as symbols', (payload) => {
    const html = htmlText(payload);
    expect(tags(html).every((tag) => tag === 'span')).toBe(true);
    expect(html).not.toMatch(/<(script|img|textarea|!--)/i);
    expect(html).not.toMatch(/[\u202A-\u202E\u2066-\u2069\x00-\x08\x0b-\x1f\x7f]/);
  });

  it('the whole page, with hostile text in the path, the diff, the tool and the note, holds no foreign markup', async () => {
    const payload = HOSTILE.join(' ');
    const file = fileChange(`src/${HOSTILE[0]}.ts`, 'const a = 1;\n', `const a = 1;\n${payload}\n`);
    const item = itemOf([file], { tool: HOSTILE[1]!, note: HOSTILE[2]! });
    const views = [new FileView(file, await loadHighlighter('x.ts'))];
    // The frame, with the queue and the change its script loads into it.
    const html = pageHtml({ root: `/home/${HOSTILE[3]}`, current: item, layout: 'unified' })
      .replace('<aside id="queue" aria-label="Changes"></aside>', queueHtml([item], item.id))
      .replace('<p class="empty">Loading the change…</p>', changeHtml(item, views, 'unified'));
    expect(html).toContain('<ol class="queue">');
    expect(html).toContain('<section class="file"');
    const made = new Set(tags(html));
    expect(made.has('img')).toBe(false);
    expect(tags(html).filter((tag) => tag === 'script')).toHaveLength(2); // the page's own <script src> only
    expect(html).not.toContain('window.pwned = 1</script>');
    expect(html).not.toMatch(/[\u202A-\u202E\u2066-\u2069\x1b\x07]/);
    expect(shownText(html)).toContain('<script>window.pwned = 1</script>');
    expect(shownText(html)).toContain('<U+202E>evil<U+202C>');
    expect(shownText(html)).toContain('␛[31mred␛[0m');
  });
});

describe('the diff rows', () => {
  const before = `${Array.from({ length: 30 }, (_, i) => `const v${i} = ${i};`).join('\n')}\n`;
  const after = before.replace('const v5 = 5;', 'const v5 = 50;').replace('const v25 = 25;', 'let v25 = 25;');
  const file = fileChange('src/a.ts', before, after);

  it('unified: old and new numbers, markers, hunk headers, collapsed regions between and around hunks', () => {
    const view = new FileView(file);
    const html = renderPage(view, 0, 0, 'unified');
    expect(html).toContain('<tr class="d"><td class="ln">6</td><td class="ln"></td><td class="mk">-</td>');
    expect(html).toContain('<tr class="a"><td class="ln"></td><td class="ln">6</td><td class="mk">+</td>');
    expect(html).toContain('<tr class="c"><td class="ln">3</td><td class="ln">3</td>');
    expect(html).toContain('@@ -3,7 +3,7 @@');
    // Lines 1-2 before the first hunk, 10-22 between the hunks, 30 after the last.
    expect(html).toContain('data-old="1" data-new="1" data-count="2"');
    expect(html).toContain('data-old="10" data-new="10" data-count="13"');
    expect(html).toContain('data-old="30" data-new="30" data-count="1"');
    expect(nextPageRow(view, 0, 0)).toBe('');
  });

  it('changed words are marked, in the same spans as the terminal', () => {
    const html = renderPage(new FileView(file), 0, 0, 'unified');
    expect(html).toContain('const v5 = <span class="em">5</span>;');
    expect(html).toContain('const v5 = <span class="em">50</span>;');
  });

  it('syntax colours come from the same highlight.js tokens', async () => {
    const html = renderPage(new FileView(file, await loadHighlighter('a.ts')), 0, 0, 'unified');
    expect(html).toContain('<span class="s-keyword">const</span>');
    expect(html).toContain('<span class="s-number em">50</span>');
  });

  it('side by side: removed lines beside added ones, context on both sides', () => {
    const html = renderPage(new FileView(file), 0, 0, 'split');
    expect(html).toMatch(
      /<tr class="x"><td class="ln d">6<\/td><td class="cd d">.*?<\/td><td class="ln a">6<\/td><td class="cd a">/,
    );
    expect(html).toContain(
      '<tr class="c"><td class="ln">4</td><td class="cd">const v3 = 3;</td><td class="ln">4</td><td class="cd">const v3 = 3;</td></tr>',
    );
  });

  it('a collapsed region expands from the old text, at most EXPAND_LINES at a time', () => {
    const view = new FileView(file);
    expect(shownText(expandRows(view, 0, 10, 10, 13, 'unified')!)).toContain('const v9 = 9;');
    expect(expandRows(view, 0, 10, 10, 13, 'unified')!.match(/<tr class="c">/g)).toHaveLength(13);
    expect(expandRows(view, 0, 29, 29, 5, 'unified')).toBeUndefined(); // past the end
    expect(expandRows(view, 0, 0, 0, 1, 'unified')).toBeUndefined();
    const long = fileChange('b.txt', `${'same\n'.repeat(2000)}old\n`, `${'same\n'.repeat(2000)}new\n`);
    const rows = expandRows(new FileView(long), 0, 1, 1, 1997, 'split')!;
    expect(rows.match(/<tr class="c">/g)).toHaveLength(EXPAND_LINES);
    expect(rows).toContain(
      `data-old="${EXPAND_LINES + 1}" data-new="${EXPAND_LINES + 1}" data-count="${1997 - EXPAND_LINES}"`,
    );
  });

  it('a file whose texts are not held says its unchanged lines cannot be shown', () => {
    const { texts: _, ...streamed } = file;
    const html = renderPage(new FileView(streamed), 0, 0, 'unified');
    expect(html).toContain('13 unchanged lines (not held in memory: this file is too large)');
    expect(html).not.toContain('class="expand"');
  });

  it('huge diffs are paged, every diff line on exactly one page, in order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 * PAGE_LINES }),
        fc.integer({ min: 1, max: 40 }),
        (changed, gap) => {
          const lines = Array.from({ length: changed * 2 }, (_, i) => `line ${i}`);
          const newer = lines.map((line, i) =>
            i % 2 === 0 && i / 2 < changed && (i / 2) % gap === 0 ? `${line}!` : line,
          );
          const big = fileChange('big.txt', `${lines.join('\n')}\n`, `${newer.join('\n')}\n`);
          const view = new FileView(big);
          const seen: string[] = [];
          for (let page = 0; page < view.pageCount; page++) {
            const html = renderPage(view, 0, page, 'unified');
            for (const match of html.matchAll(/<tr class="([cad])">.*?<td class="cd">(.*?)<\/td><\/tr>/g))
              seen.push(`${match[1]}${match[2]}`);
            const more = nextPageRow(view, 0, page);
            expect(more === '').toBe(page === view.pageCount - 1);
          }
          const expected = big.diff.hunks.flatMap((hunk) =>
            hunk.lines.map(
              (line) =>
                `${line.kind === 'add' ? 'a' : line.kind === 'remove' ? 'd' : 'c'}${line.text.replace(/!/g, '<span class="em">!</span>')}`,
            ),
          );
          expect(seen.map((row) => row.replace(/<span class="em">!<\/span>/g, '!'))).toEqual(
            expected.map((row) => row.replace(/<span class="em">!<\/span>/g, '!')),
          );
        },
      ),
      { numRuns: 25 },
    );
  });

  it('created, deleted, unchanged, empty and binary files are said plainly', () => {
    expect(plainMessage(fileChange('n.txt', '', '', 'create'))).toBe('An empty file.');
    expect(plainMessage(fileChange('n.txt', '', '', 'delete'))).toBe('The file was empty.');
    expect(plainMessage(fileChange('s.txt', 'x\n', 'x\n'))).toBe('No changes: the new content is identical.');
    expect(plainMessage({ ...fileChange('i.png', '', ''), binary: { oldSize: 2048, newSize: 4096 } })).toBe(
      'Binary file changes (2.0 KB → 4.0 KB); its bytes are not shown.',
    );
    const created = fileChange('n.txt', '', 'a\nb\n', 'create');
    expect(plainMessage(created)).toBeUndefined();
    const html = changeHtml(itemOf([created]), [new FileView(created)], 'unified');
    expect(html).toContain('Create <code>n.txt</code>?');
    expect(html).toContain('<span class="kind k-created">created</span>');
  });

  it('an undo is asked as an undo, in the words of the terminal (core/approval-question.ts)', () => {
    const undone = fileChange('a.txt', 'b\n', 'a\n');
    const html = changeHtml(itemOf([undone], { tool: 'undo_edit' }), [new FileView(undone)], 'unified');
    expect(html).toContain('Undo the last change to <code>a.txt</code>?');
    expect(html).not.toContain('Apply this edit');
    const created = fileChange('n.txt', 'x\n', '', 'delete');
    const deleted = changeHtml(itemOf([created], { tool: 'undo_edit' }), [new FileView(created)], 'unified');
    expect(deleted).toContain(
      'Undo the last change to <code>n.txt</code> (it created the file, so it is deleted)?',
    );
  });
});

describe('the change and its hash', () => {
  it('a change set shows every file, with a list of them, and one question', () => {
    const files = [
      fileChange('a.ts', 'a\n', 'A\n'),
      fileChange('b.ts', '', 'b\n', 'create'),
      fileChange('c.ts', 'c\n', '', 'delete'),
    ];
    const item = itemOf(files);
    const html = changeHtml(
      item,
      files.map((file) => new FileView(file)),
      'unified',
    );
    expect(html).toContain('Apply this change to 3 files?');
    expect(html.match(/<section class="file"/g)).toHaveLength(3);
    expect(html).toContain('<nav class="files"');
    // A deleted file's new text cannot be edited; the others can.
    expect(html.match(/class="edit"/g)).toHaveLength(2);
    expect(queueHtml([item])).toContain('3 files: a.ts, …');
  });

  it('the hash names the diff: another diff, path or question gives another hash', () => {
    const one = itemOf([fileChange('a.ts', 'a\n', 'b\n')]);
    const same = itemOf([fileChange('a.ts', 'a\n', 'b\n')]);
    const other = itemOf([fileChange('a.ts', 'a\n', 'c\n')]);
    const moved = itemOf([fileChange('z.ts', 'a\n', 'b\n')]);
    expect(one.hash).toBe(same.hash);
    expect(new Set([one.hash, other.hash, moved.hash]).size).toBe(3);
  });

  it("the person's version is diffed against the old text with the file's line ending, as the gate does", () => {
    const file = fileChange('w.txt', 'one\r\ntwo\r\n', 'one\r\nTWO\r\n');
    const [revised] = reviseFiles([file], { 'w.txt': 'one\nmine\n' });
    expect(revised!.texts!.after).toBe('one\r\nmine\r\n');
    expect(revised!.unifiedDiff).toContain('+mine\r\n');
    expect(() => reviseFiles([file], { 'other.txt': 'x' })).toThrow('other.txt is not a file of this change');
    expect(() => reviseFiles([fileChange('d.txt', 'x\n', '', 'delete')], { 'd.txt': 'x' })).toThrow(
      'cannot be edited',
    );
  });
});
