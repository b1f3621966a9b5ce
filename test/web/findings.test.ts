/**
 * The review page lists what the checks found under the question (#32): which rule asked and each finding,
 * escaped like every text from a model or a file.
 */
import { describe, expect, it } from 'vitest';
import { diffLines, formatUnifiedDiff } from '../../src/core/diff.js';
import type { ApprovalQuestion } from '../../src/gate/approval.js';
import { FileView } from '../../src/web/diff-html.js';
import { changeHtml } from '../../src/web/page.js';
import { filesOf, reviewHash } from '../../src/web/review-files.js';
import type { ReviewItem } from '../../src/web/review-queue.js';

function itemWith(findings: ApprovalQuestion['findings']): ReviewItem {
  const diff = diffLines('a\n', 'b\n');
  const request: ApprovalQuestion = {
    tool: 'edit_file',
    files: [
      {
        path: 'a.txt',
        kind: 'modify',
        diff,
        unifiedDiff: formatUnifiedDiff(diff, { oldPath: 'a.txt', newPath: 'a.txt' }),
        stats: { added: 1, removed: 1 },
        texts: { before: 'a\n', after: 'b\n' },
        ...(findings ? { findings } : {}),
      },
    ],
    ...(findings ? { findings } : {}),
  };
  const files = filesOf(request);
  return {
    id: 'x',
    request,
    files,
    hash: reviewHash(request, files),
    source: 'a test',
    createdAt: 0,
    status: 'pending',
  };
}

describe('findings on the review page', () => {
  it('which rule asked and each finding, under the question; nothing when there are none', () => {
    const item = itemWith([
      {
        kind: 'rule',
        path: 'a.txt',
        message: 'removes 4 lines <b>(more than 2)</b>',
        severity: 'ask',
        source: 'rule:big deletion',
      },
    ]);
    const html = changeHtml(
      item,
      item.files.map((file) => new FileView(file)),
      'unified',
    );
    expect(html).toContain('<ul class="note findings" aria-label="What the checks found">');
    expect(html).toContain('Asked by rule:big deletion');
    expect(html).toContain('a.txt: removes 4 lines &lt;b&gt;(more than 2)&lt;/b&gt; [rule:big deletion]');
    expect(html).not.toContain('<b>');
    const plain = itemWith(undefined);
    expect(
      changeHtml(
        plain,
        plain.files.map((file) => new FileView(file)),
        'unified',
      ),
    ).not.toContain('findings');
  });
});
