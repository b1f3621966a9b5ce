/**
 * One table of scenarios for every face (#27): each scenario is the files before, the config, the calls (in
 * editgate's tool names, and in the reference filesystem server's for the proxy), who answers the question,
 * and ONE expectation: the files after (byte for byte), the error code and the last audit line. Every face
 * runs every scenario against that same expectation, or the scenario says in `notFor` why that face cannot
 * run it.
 */

export type FaceName = 'execute' | 'cli' | 'mcp' | 'proxy';

/** One tool call: editgate's tool name and input, or the filesystem server's for the proxy. */
export interface Call {
  name: string;
  input: Record<string, unknown>;
}

/**
 * Who answers when a change is asked about:
 * - 'policy': no one is asked; the config's rules decide (an allow rule, or a deny rule).
 * - 'person-denies': a person answers Deny (at a terminal: n; over MCP: the form's Deny, with a reason).
 * - 'nobody': no one can be asked (each face's way of having no one: see faces.ts).
 * - 'cancel': the call is cancelled while the person is being asked.
 */
export type Answerer = 'policy' | 'person-denies' | 'nobody' | 'cancel';

/** The part of an audit line every face must write alike. */
export interface AuditExpectation {
  tool: string;
  path: string;
  kind: string;
  decision: string;
  decidedBy: string;
  code?: string;
  /** A change set's files (path and kind), when it is one. */
  files?: Array<{ path: string; kind: string }>;
}

export interface Scenario {
  name: string;
  files: Record<string, string | Buffer>;
  /** The policy rules in editgate.config.json (the audit log is always on, outside the root). */
  rules: Array<{ tool?: string; path?: string; action: 'allow' | 'ask' | 'deny' }>;
  answerer: Answerer;
  /** Files this size or larger are streamed (the config's streamThreshold). */
  streamThreshold?: number;
  /**
   * A before-change hook's shell command (run in the root), e.g. one that changes the file while the
   * change is being decided, as another writer would.
   */
  beforeChange?: string;
  /** editgate's calls (execute, editgate apply, the MCP server); the last one's result is the one judged. */
  calls: Call[];
  /** The same through the proxy, in the reference filesystem server's tools. */
  proxyCalls?: Call[];
  /** Why a face cannot run this scenario. */
  notFor?: Partial<Record<FaceName, string>>;
  expect: {
    /** Every file named here is exactly these bytes afterwards; null: it does not exist. */
    files: Record<string, string | Buffer | null>;
    /** The last call's error code; undefined: it succeeded. */
    code?: string;
    /** What the last call's message must say, and must never say. */
    message?: { says?: string[]; never?: RegExp };
    /** The last audit line (undefined: the log has no line at all). */
    audit?: AuditExpectation;
  };
}

const APP = 'const a = 1;\nconst b = 2;\n';
const TWICE = 'let x = 0;\nx = 1;\nx = 1;\n';
const ALLOW = [{ action: 'allow' as const }];
/** No rule: a change is asked about (reads need no one's yes). */
const ASK: Scenario['rules'] = [];
const read = (file: string): Call => ({ name: 'read_file', input: { file_path: file } });
const edit = (file: string, oldString: string, newString: string): Call => ({
  name: 'edit_file',
  input: { file_path: file, old_string: oldString, new_string: newString },
});
/** The filesystem server's edit_file (the proxy's face); `root` is filled in by the face. */
const upstreamEdit = (file: string, oldText: string, newText: string): Call => ({
  name: 'edit_file',
  input: { path: file, edits: [{ oldText, newText }] },
});

/** A file past the stream threshold: 4000 numbered lines (~60 KB), with one line to change in the middle. */
const HUGE = Array.from({ length: 4000 }, (_, i) => `line ${i + 1}: ${'x'.repeat(8)}`).join('\n') + '\n';
const HUGE_EDITED = HUGE.replace('line 2000: xxxxxxxx\n', 'line 2000: changed\n');

const NO_UNDO_UPSTREAM =
  'the filesystem server has no undo tool; `editgate undo` of a write made through the proxy is test/proxy/filesystem.test.ts';
const NO_CHANGE_SET_UPSTREAM =
  'the filesystem server has no tool that changes several files at once, so there is no change set to gate';

export const SCENARIOS: Scenario[] = [
  {
    name: 'create a file',
    files: {},
    rules: ALLOW,
    answerer: 'policy',
    calls: [{ name: 'write_file', input: { file_path: 'new.md', content: '# New\r\nü\n' } }],
    proxyCalls: [{ name: 'write_file', input: { path: 'new.md', content: '# New\r\nü\n' } }],
    expect: {
      files: { 'new.md': '# New\r\nü\n' },
      audit: { tool: 'write_file', path: 'new.md', kind: 'create', decision: 'policy', decidedBy: 'policy' },
    },
  },
  {
    name: 'modify a file',
    files: { 'app.ts': APP },
    rules: ALLOW,
    answerer: 'policy',
    calls: [read('app.ts'), edit('app.ts', 'a = 1', 'a = 42')],
    proxyCalls: [upstreamEdit('app.ts', 'a = 1', 'a = 42')],
    expect: {
      files: { 'app.ts': 'const a = 42;\nconst b = 2;\n' },
      audit: { tool: 'edit_file', path: 'app.ts', kind: 'modify', decision: 'policy', decidedBy: 'policy' },
    },
  },
  {
    name: 'AMBIGUOUS: the old text is in two places',
    files: { 'x.ts': TWICE },
    rules: ALLOW,
    answerer: 'policy',
    calls: [read('x.ts'), edit('x.ts', 'x = 1;', 'x = 2;')],
    notFor: {
      proxy:
        "the filesystem server's edit_file replaces the first place by its own contract, so there is nothing ambiguous to refuse; the person is shown which place in the diff",
    },
    expect: { files: { 'x.ts': TWICE }, code: 'AMBIGUOUS' },
  },
  {
    name: 'STALE: the file changes while the change is decided',
    files: { 'app.ts': APP },
    rules: ALLOW,
    answerer: 'policy',
    beforeChange: `printf '// another writer\\n' >> app.ts && echo '{"decision":"allow"}'`,
    calls: [read('app.ts'), edit('app.ts', 'a = 1', 'a = 42')],
    proxyCalls: [upstreamEdit('app.ts', 'a = 1', 'a = 42')],
    expect: {
      files: { 'app.ts': `${APP}// another writer\n` },
      code: 'STALE',
    },
  },
  {
    name: 'DENIED_USER: a person says no',
    files: { 'app.ts': APP },
    rules: ASK,
    answerer: 'person-denies',
    calls: [read('app.ts'), edit('app.ts', 'a = 1', 'a = 42')],
    proxyCalls: [upstreamEdit('app.ts', 'a = 1', 'a = 42')],
    expect: {
      files: { 'app.ts': APP },
      code: 'DENIED_USER',
      audit: {
        tool: 'edit_file',
        path: 'app.ts',
        kind: 'modify',
        decision: 'deny',
        decidedBy: 'user',
        code: 'DENIED_USER',
      },
    },
  },
  {
    name: 'DENIED_NO_APPROVER: no one can be asked',
    files: { 'app.ts': APP },
    rules: ASK,
    answerer: 'nobody',
    calls: [read('app.ts'), edit('app.ts', 'a = 1', 'a = 42')],
    proxyCalls: [upstreamEdit('app.ts', 'a = 1', 'a = 42')],
    expect: {
      files: { 'app.ts': APP },
      code: 'DENIED_NO_APPROVER',
      // No one said no, so the model is never told the user denied it; it is told what would let it through.
      message: { says: ['needs approval', 'policy rule'], never: /the user denied|dismissed/i },
      audit: {
        tool: 'edit_file',
        path: 'app.ts',
        kind: 'modify',
        decision: 'deny',
        decidedBy: 'editgate',
        code: 'DENIED_NO_APPROVER',
      },
    },
  },
  {
    name: 'DENIED_POLICY: a deny rule',
    files: { 'app.ts': APP },
    rules: [{ tool: 'edit_file', path: '*.ts', action: 'deny' }, ...ALLOW],
    answerer: 'policy',
    calls: [read('app.ts'), edit('app.ts', 'a = 1', 'a = 42')],
    proxyCalls: [upstreamEdit('app.ts', 'a = 1', 'a = 42')],
    expect: {
      files: { 'app.ts': APP },
      code: 'DENIED_POLICY',
      audit: {
        tool: 'edit_file',
        path: 'app.ts',
        kind: 'modify',
        decision: 'deny',
        decidedBy: 'policy',
        code: 'DENIED_POLICY',
      },
    },
  },
  {
    name: 'CANCELLED while the person is asked',
    files: { 'app.ts': APP },
    rules: ASK,
    answerer: 'cancel',
    calls: [read('app.ts'), edit('app.ts', 'a = 1', 'a = 42')],
    proxyCalls: [upstreamEdit('app.ts', 'a = 1', 'a = 42')],
    notFor: {
      cli: "editgate apply has no way to cancel one call: at its question Ctrl-C is the person's no (DENIED_USER, as test/cli/terminal.e2e.test.ts shows), and with pipes alone no one is asked",
    },
    expect: { files: { 'app.ts': APP }, code: 'CANCELLED' },
  },
  {
    name: 'undo the last change',
    files: { 'app.ts': APP },
    rules: ALLOW,
    answerer: 'policy',
    calls: [
      read('app.ts'),
      edit('app.ts', 'a = 1', 'a = 42'),
      { name: 'undo_edit', input: { file_path: 'app.ts' } },
    ],
    notFor: { proxy: NO_UNDO_UPSTREAM },
    expect: {
      files: { 'app.ts': APP },
      audit: { tool: 'undo_edit', path: 'app.ts', kind: 'modify', decision: 'policy', decidedBy: 'policy' },
    },
  },
  {
    name: 'a change set: three files, one decision',
    files: { 'app.ts': APP, 'old.txt': 'bye\n' },
    rules: ALLOW,
    answerer: 'policy',
    calls: [
      {
        name: 'apply_patch',
        input: {
          patch: [
            '*** Begin Patch',
            '*** Update File: app.ts',
            '-const a = 1;',
            '+const a = 7;',
            ' const b = 2;',
            '*** Add File: docs/notes.md',
            '+# Notes',
            '*** Delete File: old.txt',
            '*** End Patch',
          ].join('\n'),
        },
      },
    ],
    notFor: { proxy: NO_CHANGE_SET_UPSTREAM },
    expect: {
      files: { 'app.ts': 'const a = 7;\nconst b = 2;\n', 'docs/notes.md': '# Notes\n', 'old.txt': null },
      audit: {
        tool: 'apply_patch',
        path: 'app.ts',
        kind: 'modify',
        decision: 'policy',
        decidedBy: 'policy',
        files: [
          { path: 'app.ts', kind: 'modify' },
          { path: 'docs/notes.md', kind: 'create' },
          { path: 'old.txt', kind: 'delete' },
        ],
      },
    },
  },
  {
    name: 'a huge file, edited by streaming',
    files: { 'big.log': HUGE },
    rules: ALLOW,
    answerer: 'policy',
    streamThreshold: 16 * 1024,
    calls: [read('big.log'), edit('big.log', 'line 2000: xxxxxxxx', 'line 2000: changed')],
    proxyCalls: [upstreamEdit('big.log', 'line 2000: xxxxxxxx', 'line 2000: changed')],
    expect: {
      files: { 'big.log': HUGE_EDITED },
      audit: { tool: 'edit_file', path: 'big.log', kind: 'modify', decision: 'policy', decidedBy: 'policy' },
    },
  },
];
