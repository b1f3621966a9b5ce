// The syntax errors a change adds (issue #32, src/checks/syntax.ts), measured on real edits:
// - Real edits: version changes of files in the git history of real repositories (a commit's file against
//   its parent's), per language. The check should flag none of them: each one flagged is counted as a false
//   alarm and listed, for a person to see whether the commit itself broke the file.
// - Breaking edits: the same real edits, broken after the change the ways models break code, each one
//   breaking by construction (the tokens are picked from the new text's parse tree, which has no error in
//   the changed lines):
//     bracket   one bracket token of the changed lines dropped (the file's brackets no longer pair);
//     quote     the opening quote of a string in the changed lines dropped;
//     edge-line the changed lines' last line lost when it only closes brackets (`}`, `});`, `end`), or
//               their first when it opens a block (`if x:` whose body follows; `{`-ending lines);
//     indent    Python: a line in a block of the change indented one space deeper than the line above it,
//               or one space shallower (a column no enclosing block has);
//     truncated the changed lines cut after a line that opens a block, the rest of the change lost, when
//               that leaves brackets unpaired (or, in Python, a block header with no body).
//   The check should flag every one (goal: at least 99% for the tier-one languages).
// - Time: syntaxFindings on a 60 KB file: a first change to the file (clean: one full parse; broken: and the
//   old text from that tree) and a next change (from the tree the last one left), p95 of the runs, against
//   one full parse in the same run; and the first call in a new process (web-tree-sitter and the grammar
//   loaded) apart. Goal: p95 <= 20 ms.
// Repositories: this one's history always; more with EDITGATE_RISK_REPOS (git folders, ':'-separated).
// EDITGATE_RISK_PER_LANGUAGE (default 60) real edits per language and repository.
// EDITGATE_RISK_LANGUAGES=c,cpp: only these languages (to look at a few quickly); EDITGATE_RISK_SHOW_MISSED=1
// prints each missed breaking edit (where and how it was broken, the lines around the break).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { formatMs, printTable } from './lib.mjs';

const { languageOfPath, parserFor } = await import('../dist/checks/grammars.js');
const { syntaxFindings } = await import('../dist/checks/syntax.js');

const TIER_ONE = new Set([
  'typescript',
  'tsx',
  'javascript',
  'python',
  'go',
  'rust',
  'java',
  'c',
  'cpp',
  'csharp',
]);
const PER_LANGUAGE = Number(process.env.EDITGATE_RISK_PER_LANGUAGE ?? 60);
const ONLY_LANGUAGES = new Set((process.env.EDITGATE_RISK_LANGUAGES ?? '').split(',').filter(Boolean));
const MOST_BYTES = 300_000;
const here = fileURLToPath(new URL('..', import.meta.url));
const repos = [here, ...(process.env.EDITGATE_RISK_REPOS ?? '').split(':').filter(Boolean)].filter((folder) =>
  existsSync(folder),
);

// --- the corpus -----------------------------------------------------------------------------------------

function git(gitDir, args, input) {
  const result = spawnSync('git', ['-C', gitDir, ...args], {
    input,
    maxBuffer: 1 << 30,
  });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${String(result.stderr).slice(0, 300)}`);
  return result.stdout;
}

/** Blobs by `rev:path`, read in one `git cat-file --batch`; undefined for one missing, binary or too large. */
function blobs(gitDir, specs) {
  const out = git(gitDir, ['cat-file', '--batch'], `${specs.join('\n')}\n`);
  const texts = [];
  let at = 0;
  for (let i = 0; i < specs.length; i++) {
    const end = out.indexOf(10, at);
    const header = out.subarray(at, end).toString();
    at = end + 1;
    const size = Number(header.split(' ')[2]);
    if (header.endsWith('missing') || Number.isNaN(size)) {
      texts.push(undefined);
      continue;
    }
    const bytes = out.subarray(at, at + size);
    at += size + 1;
    texts.push(size > MOST_BYTES || bytes.includes(0) ? undefined : bytes.toString('utf8'));
  }
  return texts;
}

/** Up to PER_LANGUAGE changed files per language from a repository's history, newest first. */
function realEdits(gitDir) {
  const log = git(gitDir, [
    'log',
    '--no-merges',
    '--diff-filter=M',
    '--name-only',
    '--format=@%H',
    '-n',
    '6000',
  ])
    .toString()
    .split('\n');
  const picked = [];
  const perLanguage = new Map();
  const perPath = new Map();
  let commit;
  for (const line of log) {
    if (line.startsWith('@')) {
      commit = line.slice(1);
      continue;
    }
    const language = line && languageOfPath(line);
    if (!language || (ONLY_LANGUAGES.size > 0 && !ONLY_LANGUAGES.has(language))) continue;
    if ((perLanguage.get(language) ?? 0) >= PER_LANGUAGE * 2) continue;
    // At most three versions of one file, so one busy file does not make the corpus.
    if ((perPath.get(line) ?? 0) >= 3) continue;
    perPath.set(line, (perPath.get(line) ?? 0) + 1);
    perLanguage.set(language, (perLanguage.get(language) ?? 0) + 1);
    picked.push({ commit, path: line, language });
  }
  const texts = blobs(
    gitDir,
    picked.flatMap(({ commit, path }) => [`${commit}^:${path}`, `${commit}:${path}`]),
  );
  const edits = [];
  const kept = new Map();
  picked.forEach((edit, i) => {
    const before = texts[2 * i];
    const after = texts[2 * i + 1];
    if (before === undefined || after === undefined || before === after) return;
    if ((kept.get(edit.language) ?? 0) >= PER_LANGUAGE) return;
    kept.set(edit.language, (kept.get(edit.language) ?? 0) + 1);
    edits.push({ ...edit, repo: gitDir, before, after });
  });
  return edits;
}

// --- breaking an edit -----------------------------------------------------------------------------------

const OPEN = { '{': '}', '(': ')', '[': ']' };
const CLOSE = new Set(['}', ')', ']']);
const QUOTES = new Set(['"', "'", '`', 'string_start', '"""', "'''"]);

function changedRows(before, after) {
  const a = before.split('\n');
  const b = after.split('\n');
  let prefix = 0;
  while (prefix < Math.min(a.length, b.length) && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < Math.min(a.length, b.length) - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  )
    suffix++;
  return { first: prefix, last: b.length - suffix - 1 };
}

/** The leaf tokens of a tree whose rows lie in [first, last], in order, with whether an error is near. */
function tokensIn(tree, first, last) {
  const tokens = [];
  const walk = (node) => {
    if (node.endPosition.row < first || node.startPosition.row > last) return;
    if (node.childCount === 0) {
      if (node.startPosition.row >= first && node.endPosition.row <= last)
        tokens.push({
          type: node.type,
          start: node.startIndex,
          end: node.endIndex,
          parent: node.parent?.type,
        });
      return;
    }
    for (const child of node.children) walk(child);
  };
  walk(tree.rootNode);
  return tokens;
}

/** Whether the tokens' brackets do not pair up: `${`, `#{` and `{$` open a brace a plain `}` closes. */
function bracketBalance(tokens) {
  const count = { '{': 0, '(': 0, '[': 0 };
  for (const { type } of tokens) {
    if (type in OPEN) count[type]++;
    else if (type.length > 1 && type.includes('{') && !type.includes('}')) count['{']++;
    else if (CLOSE.has(type)) count[Object.keys(OPEN).find((open) => OPEN[open] === type)]--;
  }
  return Object.values(count).some((n) => n !== 0);
}

function indentOf(line) {
  return line.length - line.trimStart().length;
}

/** A few reproducible picks: the same edit is broken the same way in every run. */
function pick(list, seed) {
  return list.length === 0 ? undefined : list[Math.abs(seed) % list.length];
}

function seedOf(text) {
  let hash = 0;
  for (let i = 0; i < text.length; i += 97) hash = (hash * 31 + text.charCodeAt(i)) | 0;
  return hash;
}

/** The ways to break one real edit: { how, after } for each that applies to its changed lines. */
async function breakings(edit) {
  const { before, after, language } = edit;
  const parser = await parserFor(language);
  const tree = parser.parse(after);
  if (!tree) return [];
  try {
    const { first, last } = changedRows(before, after);
    if (last < first) return [];
    const tokens = tokensIn(tree, first, last);
    // Only edits whose new lines read cleanly: a break is then the only error there.
    if (tokens.some((t) => t.type === 'ERROR') || hasErrorIn(tree.rootNode, first, last)) return [];
    const seed = seedOf(after);
    const lines = after.split('\n');
    const out = [];
    const drop = (start, end) => `${after.slice(0, start)}${after.slice(end)}`;
    const bracket = pick(
      tokens.filter(
        (t) =>
          (t.type in OPEN || CLOSE.has(t.type)) &&
          t.end - t.start === 1 &&
          // A C/C++ macro's parameter list opened: without its `(`, `#define F(a) …` is `#define Fa) …`,
          // an object-like macro whose body may hold anything; the preprocessor and compiler accept it.
          !(t.type === '(' && t.parent === 'preproc_params'),
      ),
      seed,
    );
    // YAML reads `a, b]` and `foo"` as plain text, and HTML's text may hold any bracket: not broken there.
    const plainText = language === 'yaml' || language === 'html';
    if (bracket && !plainText) out.push({ how: 'bracket', after: drop(bracket.start, bracket.end) });
    const quote = pick(
      tokens.filter(
        (t) =>
          QUOTES.has(t.type) &&
          after[t.start] !== undefined &&
          `"'\``.includes(after[t.start]) &&
          // Rust's lifetime sigil is no quote: without it `<'a>` is `<a>`, a type parameter (a name error
          // for the compiler, not a syntax error).
          t.parent !== 'lifetime',
      ),
      seed,
    );
    // The opening quote: the first of its string's delimiters.
    if (quote && language !== 'yaml') out.push({ how: 'quote', after: drop(quote.start, quote.start + 1) });
    const lineStart = (row) => lines.slice(0, row).reduce((n, line) => n + line.length + 1, 0);
    const withoutRows = (from, to) =>
      `${lines
        .slice(0, from)
        .concat(lines.slice(to + 1))
        .join('\n')}`;
    const rowTokens = (from, to) =>
      tokens.filter((t) => t.start >= lineStart(from) && t.end <= lineStart(to) + lines[to].length);
    // Edge line: the last changed line when it only closes, else the first when it opens a block.
    if (
      /^[\s})\];,]*$/.test(lines[last]) &&
      /[})\]]/.test(lines[last]) &&
      bracketBalance(rowTokens(last, last))
    )
      out.push({ how: 'edge-line', after: withoutRows(last, last) });
    else if (language === 'ruby' && lines[last].trim() === 'end')
      out.push({ how: 'edge-line', after: withoutRows(last, last) });
    else if (
      first < last &&
      language === 'python' &&
      /:\s*$/.test(lines[first]) &&
      indentOf(lines[first + 1]) > indentOf(lines[first]) &&
      // Without its header the body must be an unexpected indent: deeper than the statement above it.
      indentOf(lines[first + 1]) >
        indentOf(lines.slice(0, first).findLast((line) => line.trim() !== '') ?? '') &&
      !/[:\\,([{]\s*$/.test(lines.slice(0, first).findLast((line) => line.trim() !== '') ?? '')
    )
      out.push({ how: 'edge-line', after: withoutRows(first, first) });
    else if (first < last && /\{\s*$/.test(lines[first]) && bracketBalance(rowTokens(first, first)))
      out.push({ how: 'edge-line', after: withoutRows(first, first) });
    if (language === 'python') {
      const indent = pythonIndentBreak(lines, first, last, rowTokens, seed, rowsInStrings(tree, first, last));
      if (indent) out.push({ how: 'indent', after: indent });
    }
    const truncated = truncate(lines, first, last, language, rowTokens);
    if (truncated) out.push({ how: 'truncated', after: truncated });
    return out.filter((broken) => broken.after !== after);
  } finally {
    tree.delete();
  }
}

/** The rows in [first, last] that lie inside a string over several lines, after its first row. */
function rowsInStrings(tree, first, last) {
  const rows = new Set();
  const walk = (node) => {
    if (node.endPosition.row < first || node.startPosition.row > last) return;
    if (node.type === 'string' && node.endPosition.row > node.startPosition.row) {
      for (let row = node.startPosition.row + 1; row <= node.endPosition.row; row++) rows.add(row);
      return;
    }
    for (const child of node.children) walk(child);
  };
  walk(tree.rootNode);
  return rows;
}

function hasErrorIn(node, first, last) {
  if (!node.hasError || node.endPosition.row < first || node.startPosition.row > last) return false;
  if (node.isError || node.isMissing) return true;
  return node.children.some((child) => hasErrorIn(child, first, last));
}

/**
 * A statement line in a block the change wrote, indented one deeper than the statement above it (an
 * unexpected indent), or dedented to a column between its block's and the enclosing one (matching none).
 * Only where both lines are whole statements: no bracket open across them, no string or comment.
 */
function pythonIndentBreak(lines, first, last, rowTokens, seed, inStrings) {
  const candidates = [];
  for (let row = Math.max(first, 1); row <= last; row++) {
    const line = lines[row];
    const above = lines[row - 1];
    if (!line.trim() || !above.trim()) continue;
    // A line of a docstring (or any string over several lines) is text: its indentation is free.
    if (inStrings.has(row)) continue;
    if (indentOf(line) !== indentOf(above) || indentOf(line) < 4) continue;
    if (
      /[:\\,([{]\s*$/.test(above) ||
      /^\s*[)\]}#@]/.test(line) ||
      /^\s*(else|elif|except|finally)\b/.test(line)
    )
      continue;
    const near = rowTokens(row - 1, row);
    if (bracketBalance(near) || near.some((t) => QUOTES.has(t.type) || t.type === 'comment')) continue;
    candidates.push(row);
  }
  const row = pick(candidates, seed);
  if (row === undefined) return undefined;
  const line = lines[row];
  const indent = indentOf(line);
  // One column out: no block can start there when blocks step by two or more.
  const changed = seed % 2 === 0 ? ` ${line}` : `${' '.repeat(indent - 1)}${line.trimStart()}`;
  return [...lines.slice(0, row), changed, ...lines.slice(row + 1)].join('\n');
}

/** The change cut after a line that opens a block: its later lines lost, when that breaks by construction. */
function truncate(lines, first, last, language, rowTokens) {
  for (let row = first; row < last; row++) {
    const opens = language === 'python' ? /:\s*$/.test(lines[row]) : /[{([]\s*$/.test(lines[row]);
    if (!opens) continue;
    const lost = rowTokens(row + 1, last);
    const result = [...lines.slice(0, row + 1), ...lines.slice(last + 1)];
    if (language === 'python') {
      const next = lines.slice(last + 1).find((line) => line.trim() !== '');
      if (next === undefined || indentOf(next) <= indentOf(lines[row])) return result.join('\n');
      continue;
    }
    if (bracketBalance(lost)) return result.join('\n');
  }
  return undefined;
}

// --- run -----------------------------------------------------------------------------------------------

const edits = repos.flatMap(realEdits);
const rows = new Map();
const row = (language) => {
  if (!rows.has(language))
    rows.set(language, { real: 0, falseAlarms: 0, broken: 0, flagged: 0, missed: new Map() });
  return rows.get(language);
};
const falseAlarms = [];
const missed = [];
for (const edit of edits) {
  const stats = row(edit.language);
  stats.real++;
  const findings = await syntaxFindings(edit.path, edit.before, edit.after);
  if (findings.length > 0) {
    stats.falseAlarms++;
    falseAlarms.push({ ...edit, findings });
  }
  for (const broken of await breakings(edit)) {
    stats.broken++;
    const found = await syntaxFindings(edit.path, edit.before, broken.after);
    if (found.length > 0) stats.flagged++;
    else {
      stats.missed.set(broken.how, (stats.missed.get(broken.how) ?? 0) + 1);
      missed.push({ ...edit, how: broken.how, brokenAfter: broken.after });
    }
  }
}

const pct = (n, d) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`);
console.log(`Repositories: ${repos.map((r) => r.replace(/\/\.git$|\/repo$/, '')).join(', ')}`);
printTable(
  ['language', 'tier', 'real edits', 'false alarms', 'breaking edits', 'flagged', 'missed (by way)'],
  [...rows.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([language, s]) => [
      language,
      TIER_ONE.has(language) ? 'one' : 'two',
      String(s.real),
      `${s.falseAlarms} (${pct(s.falseAlarms, s.real)})`,
      String(s.broken),
      pct(s.flagged, s.broken),
      [...s.missed.entries()].map(([how, n]) => `${how} ${n}`).join(', ') || '-',
    ]),
);
const tierOne = [...rows.entries()].filter(([language]) => TIER_ONE.has(language)).map(([, s]) => s);
const sum = (list, key) => list.reduce((n, s) => n + s[key], 0);
const all = [...rows.values()];
console.log(
  `Tier one: ${pct(sum(tierOne, 'flagged'), sum(tierOne, 'broken'))} of ${sum(tierOne, 'broken')} breaking edits flagged (goal >= 99%), ` +
    `${sum(tierOne, 'falseAlarms')} false alarms in ${sum(tierOne, 'real')} real edits (goal 0). ` +
    `All: ${pct(sum(all, 'flagged'), sum(all, 'broken'))} flagged, ${sum(all, 'falseAlarms')} false alarms in ${sum(all, 'real')}.`,
);
for (const alarm of falseAlarms.slice(0, 20)) {
  console.log(
    `  false alarm: ${alarm.language} ${alarm.path} @ ${alarm.commit.slice(0, 10)}: ${alarm.findings.map((f) => `line ${f.line} ${f.message}`).join('; ')}`,
  );
}
if (process.env.EDITGATE_RISK_SHOW_MISSED) {
  for (const m of missed) {
    const { first, last } = changedRows(m.after, m.brokenAfter);
    const lines = m.brokenAfter.split('\n');
    const was = m.after.split('\n');
    console.log(`  missed: ${m.language} ${m.how} ${m.path} @ ${m.commit.slice(0, 10)} line ${first + 1}`);
    for (
      let row = Math.max(0, first - 2);
      row <= Math.min(lines.length - 1, Math.max(first, last) + 2);
      row++
    )
      console.log(
        `    ${String(row + 1).padStart(5)}${row >= first && row <= last ? '>' : ' '} ${lines[row]}`,
      );
    if (last < first)
      console.log(`    (removed: ${was.slice(first, first + (was.length - lines.length)).join(' / ')})`);
    else
      console.log(
        `    (was:     ${was.slice(first, first + 1 + (was.length - lines.length) + (last - first)).join(' / ')})`,
      );
  }
}
// EDITGATE_RISK_MISSED=folder: each missed breaking edit's old and broken text written there, to look at.
if (process.env.EDITGATE_RISK_MISSED) {
  const folder = process.env.EDITGATE_RISK_MISSED;
  mkdirSync(folder, { recursive: true });
  missed.forEach((m, i) => {
    const name = `${i}-${m.language}-${m.how}-${m.path.replace(/.*\//, '')}`;
    writeFileSync(`${folder}/${name}.before`, m.before);
    writeFileSync(`${folder}/${name}.after`, m.brokenAfter);
  });
  console.log(`  ${missed.length} missed breaking edits written to ${folder}`);
}

// --- time on a 60 KB file ---------------------------------------------------------------------------------

// A real package's file near 60 KB (in node_modules through the dev tools), else a real edit's file grown to it.
const SIXTY_KB_FILES = ['lru-cache/dist/esm/index.js', 'path-scurry/dist/esm/index.js'];
const packaged = SIXTY_KB_FILES.map((file) => `${here}node_modules/${file}`).find((file) => existsSync(file));
const grownFrom = edits.find((e) => e.language === 'javascript' || e.language === 'typescript');
const timing = packaged
  ? { path: packaged.slice(here.length), language: 'javascript', target: readFileSync(packaged, 'utf8') }
  : grownFrom && { ...grownFrom, target: sixtyKB(grownFrom.after) };
// EDITGATE_RISK_TIME=0 leaves the timing out (when looking at the corpus alone).
if (timing && process.env.EDITGATE_RISK_TIME !== '0') {
  const { target } = timing;
  const lines = target.split('\n');
  const middle = lines.length >> 1;
  const clean = [...lines.slice(0, middle), `${lines[middle]} // edited`, ...lines.slice(middle + 1)].join(
    '\n',
  );
  const brokenLine = lines.findIndex((line, i) => i > middle && /\)\s*[;{]?\s*$/.test(line));
  const broken = [
    ...lines.slice(0, brokenLine),
    lines[brokenLine].replace(/\)(\s*[;{]?\s*)$/, '$1'),
    ...lines.slice(brokenLine + 1),
  ].join('\n');
  // The first change to a file reads its new text whole (and its old text, from that tree, only when the new
  // one has errors); a next change starts from the tree of the text the last one wrote. Each run's texts are
  // new, so nothing is reused that a real session would not have. The reference, in the same run: one full
  // parse of the same text with the same parser (the floor for a first change; load on this machine moves
  // both alike).
  const parser = await parserFor(timing.language);
  const kinds = [
    'first change, clean',
    'first change, broken',
    'next change, clean',
    'next change, broken',
    'reference: one full parse',
  ];
  const times = Object.fromEntries(kinds.map((kind) => [kind, []]));
  let previous = target;
  const timed = async (kind, old, after) => {
    const start = performance.now();
    await syntaxFindings(timing.path, old, after);
    times[kind].push(performance.now() - start);
  };
  for (let i = 0; i < 60; i++) {
    const before = `// run ${i}\n${target}`;
    await timed('first change, clean', before, `// run ${i}\n${clean}`);
    await timed('first change, broken', before, `// run ${i}\n${broken}`);
    const start = performance.now();
    parser.parse(`// parse ${i}\n${target}`)?.delete();
    times['reference: one full parse'].push(performance.now() - start);
    const edited = previous.split('\n');
    const at = (middle + i * 7) % edited.length;
    edited[at] = `${edited[at]} // ${i}`;
    const next = edited.join('\n');
    // A bracket dropped from the next change's line: the check then reads the old text too.
    const nextBroken = [
      ...edited.slice(0, brokenLine),
      broken.split('\n')[brokenLine],
      ...edited.slice(brokenLine + 1),
    ];
    await timed('next change, broken', previous, nextBroken.join('\n'));
    await timed('next change, clean', previous, next);
    previous = next;
  }
  const sorted = (list) => [...list].sort((a, b) => a - b);
  const p95 = (list) => sorted(list)[Math.floor(list.length * 0.95)];
  const median = (list) => sorted(list)[list.length >> 1];
  // The first check in a process: web-tree-sitter and the grammar loaded, then a first change (5 processes).
  const cold = [];
  for (let i = 0; i < 5; i++) {
    const script = `const { syntaxFindings } = await import(${JSON.stringify(new URL('../dist/checks/syntax.js', import.meta.url).href)});
const fs = await import('node:fs'); const text = fs.readFileSync(${JSON.stringify(packaged ?? '')}, 'utf8');
const start = performance.now(); await syntaxFindings('a.js', text, text + '\\n// x');
console.log(performance.now() - start);`;
    const run = packaged && spawnSync(process.execPath, ['--input-type=module', '-e', script]);
    if (run && run.status === 0) cold.push(Number(String(run.stdout).trim()));
  }
  const load = (await import('node:os')).loadavg()[0].toFixed(1);
  console.log(
    `\nTime on a ${(target.length / 1000).toFixed(0)} KB ${timing.language} file (${timing.path}), 60 runs each, load average ${load} (goal: p95 <= 20 ms):`,
  );
  printTable(
    ['edit', 'min', 'median', 'p95', 'max', 'p95 / reference p95'],
    Object.entries(times).map(([kind, list]) => [
      kind,
      formatMs(sorted(list)[0]),
      formatMs(median(list)),
      formatMs(p95(list)),
      formatMs(Math.max(...list)),
      `${(p95(list) / p95(times['reference: one full parse'])).toFixed(2)}x`,
    ]),
  );
  if (cold.length > 0)
    console.log(
      `First check in a new process (web-tree-sitter and the grammar loaded, then a first change), ${cold.length} processes: ${sorted(cold).map(formatMs).join(', ')}`,
    );
}

/** The text grown or cut to about 60 KB at line ends, repeating its own lines. */
function sixtyKB(text) {
  let grown = text;
  while (grown.length < 60_000) grown += `\n${text}`;
  return grown.slice(0, grown.lastIndexOf('\n', 60_000) + 1);
}
