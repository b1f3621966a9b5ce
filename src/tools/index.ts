import { statSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { z } from 'zod';
import {
  type LanguageServerConfig,
  parseBudget,
  parseLanguageServers,
} from '../checks/language-server-config.js';
import { EditgateError, throwIfCancelled } from '../core/errors.js';
import type { ProgressCallback } from '../core/progress.js';
import type { Approver } from '../gate/approval.js';
import type { ChangeCheck } from '../gate/checks.js';
import type { Gate, Screening } from '../gate/gate.js';
import { SessionGrants } from '../gate/grants.js';
import type { Hooks } from '../gate/hooks.js';
import type { SessionNaming } from '../gate/open-gate.js';
import type { Policy } from '../gate/policy.js';
import type { Proposal } from '../gate/proposal.js';
import { DEFAULT_STREAM_THRESHOLD, MAX_STREAM_THRESHOLD } from '../workspace/stream/limits.js';
import { applyChangeTool } from './apply-change.js';
import { applyPatchTool } from './apply-patch.js';
import type { ToolDetailsByName } from './details.js';
import { editFileTool } from './edit-file.js';
import { editLinesTool } from './edit-lines.js';
import { FileQueue } from './file-queue.js';
import { inputObject, normalizeAliases, parseInput } from './input.js';
import { multiEditTool } from './multi-edit.js';
import { refuseInsideRoots } from './outside-roots.js';
import { readFileTool } from './read-file.js';
import { failure, type ToolResult } from './result.js';
import type {
  CallDescription,
  CallInput,
  DescriptionConfig,
  ToolAnnotations,
  ToolContext,
  ToolSpec,
} from './tool.js';
import { undoEditTool } from './undo-edit.js';
import { writeFileTool } from './write-file.js';

export interface CreateEditToolsOptions {
  /** The workspace root, or several; relative paths resolve against the first. */
  root: string | string[];
  /** Who approves changes policy does not decide. Required: there is no default that silently allows. */
  approve: Approver | 'allow' | 'deny';
  policy?: Policy;
  hooks?: Hooks;
  /**
   * The session its changes are logged under, with `stateDir` (gate/open-gate.ts), for `editgate review
   * --session`: a face names its own (a chat session, an MCP connection); default a new library session;
   * false logs nothing.
   */
  sessionLog?: SessionNaming | false;
  /** Globs (relative to a root) that may never be read or changed. Default: .git and everything in it. */
  deny?: string[];
  /**
   * When `root` narrows the folders `deny` and `policy` were written for (an MCP client's roots inside the
   * configured ones), those folders: rules match paths relative to them, as written.
   */
  ruleRoots?: string[];
  /** Edits and overwrites need a full, current read_file first. Default true. */
  requireReadBeforeEdit?: boolean;
  /** 'tolerant' (default) lets whitespace/indentation/punctuation slips match when exact finds nothing. */
  matching?: 'exact' | 'tolerant';
  /**
   * Placeholders for code left out (`// ... rest of the code unchanged`, `(existing methods)`) in new text
   * whose old text has none are refused, since they would be written literally and delete that code.
   * true lets them through. Default false.
   */
  allowPlaceholders?: boolean;
  /** Path of a JSON Lines audit log of every change and denial. */
  auditLog?: string;
  /** Folder outside the workspace where undo history is kept across processes; memory only when absent. */
  stateDir?: string;
  /**
   * Called (and awaited) with every proposal before approval is asked, auto-approved or not; `screening`
   * says whether the approver is asked next or policy / a session grant already approved.
   */
  onPreview?: (proposal: Proposal, screening: Screening) => void | Promise<void>;
  /** read_file's default number of lines. Default 2000. */
  readLimit?: number;
  /**
   * read_file ends a page before its text passes this many characters (the rest is read with offset, and
   * only what was shown counts as read). Default 256,000; the MCP server uses 25,000, below what its
   * clients keep of a result (mcp/options.ts).
   */
  readPageChars?: number;
  /**
   * 'apply' (default): changes are decided and written in the call. 'preview': change tools write nothing and
   * return the diff with a change_id; the apply_change tool writes it (for clients that cannot ask a person
   * mid-call: the person approves the apply_change call instead).
   */
  mode?: 'apply' | 'preview';
  /** Preview mode: how long a proposed change can wait for apply_change. Default 10 minutes. */
  stagedTtlMs?: number;
  /**
   * Files of at least this many bytes are read and edited by streaming, with memory bounded whatever their
   * size (write_file and multi_edit refuse them with TOO_LARGE). Default 32 MiB; at most 256 MiB, well
   * below the ~512 MiB where a file no longer fits in a JavaScript string.
   */
  streamThreshold?: number;
  /** Progress of streamed work on huge files (indexing, searching, writing), at most every 100 ms. */
  onProgress?: ProgressCallback;
  /** Bytes per read/write on the streaming path. Default 1 MiB; tests use a few bytes. */
  streamChunkSize?: number;
  /**
   * Checks of every proposed change, run after the built-in ones (gate/checks.ts): what they find is shown
   * with the question and told to the model; a finding of severity 'ask' asks a person even past a grant,
   * --yes or an allow rule, one of severity 'deny' refuses the change.
   */
  checks?: ChangeCheck[];
  /**
   * Language servers, by name, whose diagnostics a change adds are shown with the question (issue #32):
   * `{ typescript: { command: ['typescript-language-server', '--stdio'], files: ['**\/*.ts'] } }`. Each is
   * started at the first change of a file it checks and kept for the process's life (closeLanguageServers
   * stops them sooner). editgate installs none.
   */
  languageServers?: Record<string, LanguageServerConfig>;
  /** How long a question waits for the language servers' diagnostics, in ms. Default 1500. */
  languageServerBudgetMs?: number;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  /** JSON Schema of the input. */
  inputSchema: Record<string, unknown>;
  annotations: ToolAnnotations;
}

export interface ExecuteOptions {
  /**
   * Cancels the call (an MCP client's cancellation, an AI SDK abort): nothing is written once it fires, and
   * the call answers ok: false with code CANCELLED. A change already renamed into place stays written.
   */
  signal?: AbortSignal;
}

export interface EditTools {
  readonly definitions: ToolDefinition[];
  execute(name: string, input: unknown, options?: ExecuteOptions): Promise<ToolResult>;
  /** Grants made during this session (this file / all edits); `session.reset()` forgets them. */
  readonly session: SessionGrants;
  /** The gate every change goes through, for front ends that need more than execute (previews, undo). */
  gate(): Promise<Gate>;
}

/**
 * Every tool by its name, each answering with the details details.ts gives that name: a tool whose run
 * answers with other details does not compile here, which is what lets front ends read details typed.
 */
const BY_NAME = {
  read_file: readFileTool,
  write_file: writeFileTool,
  edit_file: editFileTool,
  multi_edit: multiEditTool,
  edit_lines: editLinesTool,
  apply_patch: applyPatchTool,
  undo_edit: undoEditTool,
  apply_change: applyChangeTool,
} satisfies { [Name in keyof ToolDetailsByName]: ToolSpec<unknown, ToolDetailsByName[Name]> };

/** The tools every session lists, in this order (apply_change only in preview mode). */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds tools with different input types.
const TOOLS: ToolSpec<any>[] = Object.values(BY_NAME).filter((tool) => tool !== applyChangeTool);

export const TOOL_NAMES = TOOLS.map((tool) => tool.name);

/** The tools that change files (every tool but the read-only ones; apply_change, in preview mode, aside). */
export const CHANGE_TOOL_NAMES = TOOLS.filter((tool) => !tool.annotations.readOnlyHint).map(
  (tool) => tool.name,
);

export type { CallDescription } from './tool.js';

const DESCRIBED = new Map<string, ToolSpec<unknown>>(Object.entries(BY_NAME));

/**
 * What a call of the tool `name` is about, as the tool describes it (its title and every path it reads or
 * changes), from the input as sent: a JSON string or an object, aliases as execute takes them, nothing
 * checked. Never throws: an unknown tool or an input that is not an object gives the name and no path.
 */
export function describeCall(name: string, input: unknown): CallDescription {
  const tool = typeof name === 'string' ? DESCRIBED.get(name) : undefined;
  if (!tool) return { title: String(name), paths: [] };
  try {
    return tool.describe(callInput(tool.name, input));
  } catch {
    // A describe is written not to throw; this keeps a call shown whatever one does.
    return { title: tool.title, paths: [] };
  }
}

/** The input as execute would read it, or as much of it as can be read: never throws. */
function callInput(tool: string, input: unknown): CallInput {
  let object: Record<string, unknown>;
  try {
    object = inputObject(input);
  } catch {
    return {};
  }
  try {
    return normalizeAliases(tool, object);
  } catch {
    // Both an alias and its canonical name: execute refuses it; the canonical one is what it names.
    return object;
  }
}

const PREVIEW_NOTE =
  '\nIn this session changes are previewed: this tool writes nothing and returns the diff, a change_id and a change_hash; call apply_change with them and the file_path to write.';

/**
 * The input schema as every model API and MCP client takes it, sent as is by all front ends. Tools use no
 * z.tuple (draft-7 writes it as `items: [...]`, which some APIs refuse); the ±MAX_SAFE_INTEGER bounds zod
 * puts on every integer say nothing to a model and are left out.
 */
function toDefinition(tool: ToolSpec<unknown>, config: DescriptionConfig, note = ''): ToolDefinition {
  const schema = z.toJSONSchema(tool.schema, {
    target: 'draft-7',
    io: 'input',
    override: ({ jsonSchema }) => {
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  }) as Record<string, unknown>;
  delete schema.$schema;
  const description = typeof tool.description === 'function' ? tool.description(config) : tool.description;
  return {
    name: tool.name,
    title: tool.title,
    description: description + note,
    inputSchema: schema,
    annotations: tool.annotations,
  };
}

function checkRoots(root: string | string[]): string[] {
  const roots = Array.isArray(root) ? root : [root];
  if (roots.length === 0 || roots.some((entry) => typeof entry !== 'string' || entry === '')) {
    throw new EditgateError('INVALID_INPUT', 'createEditTools needs a root folder (a non-empty path).');
  }
  return roots.map((entry) => {
    const absolute = resolvePath(entry);
    let isFolder = false;
    try {
      isFolder = statSync(absolute).isDirectory();
    } catch {
      isFolder = false;
    }
    if (!isFolder)
      throw new EditgateError('INVALID_INPUT', `The workspace root ${absolute} is not an existing folder.`);
    return absolute;
  });
}

function checkThreshold(options: CreateEditToolsOptions): number {
  const threshold = options.streamThreshold ?? DEFAULT_STREAM_THRESHOLD;
  if (!(threshold >= 1 && threshold <= MAX_STREAM_THRESHOLD)) {
    throw new EditgateError(
      'INVALID_INPUT',
      `streamThreshold must be a size in bytes from 1 to ${MAX_STREAM_THRESHOLD} (256 MiB), not ${threshold}.`,
    );
  }
  return threshold;
}

/** The editgate tools over a workspace: definitions for a model, and execute for its calls. */
export function createEditTools(options: CreateEditToolsOptions): EditTools {
  if (
    !options ||
    (typeof options.approve !== 'function' && options.approve !== 'allow' && options.approve !== 'deny')
  ) {
    throw new EditgateError(
      'INVALID_INPUT',
      "createEditTools needs `approve`: an Approver function, 'allow' or 'deny'. There is no default, so nothing is ever approved by accident.",
    );
  }
  const roots = checkRoots(options.root);
  if (options.stateDir !== undefined) refuseInsideRoots('stateDir', options.stateDir, roots);
  if (options.auditLog !== undefined) refuseInsideRoots('auditLog', options.auditLog, roots);
  const threshold = checkThreshold(options);
  // Checked now (INVALID_INPUT at once); their check loads with the gate, and starts no server until a
  // file one checks is changed.
  const languageServers = options.languageServers;
  if (languageServers !== undefined) parseLanguageServers(languageServers);
  const budgetMs = parseBudget(options.languageServerBudgetMs);
  const readLimit = options.readLimit ?? 2000;
  // Grants belong to this tool set; created now so callers can inspect or reset them before any call.
  const session = new SessionGrants();
  const preview = options.mode === 'preview';
  const active = preview ? [...TOOLS, applyChangeTool] : TOOLS;
  let gatePromise: Promise<Gate> | undefined;

  // The gate and the workspace below it load at the first call, not with the definitions: a command that
  // only lists the tools (an MCP server's start) never loads them, and the first call loads them once.
  const getGate = (): Promise<Gate> => {
    gatePromise ??= import('../gate/open-gate.js').then(({ openGate }) =>
      openGate({
        roots,
        deny: options.deny,
        ruleRoots: options.ruleRoots,
        stateDir: options.stateDir,
        streamer: {
          threshold,
          onProgress: options.onProgress,
          chunkSize: options.streamChunkSize,
          // Undo data of streamed edits lives with the rest of the history when that is kept on disk.
          patchDir: options.stateDir ? join(options.stateDir, 'history', 'patches') : undefined,
        },
        approve: options.approve,
        policy: options.policy,
        readOnlyTools: active.filter((tool) => tool.annotations.readOnlyHint).map((tool) => tool.name),
        hooks: options.hooks,
        requireReadBeforeEdit: options.requireReadBeforeEdit,
        auditLog: options.auditLog,
        onPreview: options.onPreview,
        session,
        stagedTtlMs: options.stagedTtlMs,
        checks: options.checks,
        ...(languageServers !== undefined ? { languageServers, languageServerBudgetMs: budgetMs } : {}),
        ...(options.sessionLog !== undefined ? { sessionLog: options.sessionLog } : {}),
      }),
    );
    return gatePromise;
  };

  const config: DescriptionConfig = { readLimit, streamThreshold: threshold };
  const definitions = active.map((tool) =>
    toDefinition(
      tool,
      config,
      preview && !tool.annotations.readOnlyHint && tool !== applyChangeTool ? PREVIEW_NOTE : '',
    ),
  );
  const byName = new Map(active.map((tool) => [tool.name, tool]));
  const changes = new FileQueue();

  return {
    definitions,
    session,
    gate: getGate,
    async execute(name: string, input: unknown, executeOptions: ExecuteOptions = {}): Promise<ToolResult> {
      const signal = executeOptions.signal;
      const tool = typeof name === 'string' ? byName.get(name) : undefined;
      if (!tool) {
        return failure(
          String(name),
          new EditgateError(
            'UNKNOWN_TOOL',
            `There is no tool named ${JSON.stringify(name)}. The tools are: ${[...byName.keys()].join(', ')}.`,
            { tools: [...byName.keys()] },
          ),
        );
      }
      try {
        throwIfCancelled(signal);
        const parsed = parseInput(tool.name, tool.schema, inputObject(input));
        const gate = await getGate();
        // Before the path is even resolved: a half-renamed set's kept original is a second link, which the
        // guard refuses (change-set-journal.ts).
        await gate.workspace.recover();
        const context: ToolContext = {
          gate,
          workspace: gate.workspace,
          change: (request) =>
            preview ? gate.stage({ ...request, signal }) : gate.change({ ...request, signal }),
          matching: options.matching ?? 'tolerant',
          placeholders: options.allowPlaceholders === true ? 'allow' : 'refuse',
          readLimit,
          maxReadChars: options.readPageChars ?? 256_000,
          signal,
        };
        const path = (parsed as { file_path?: unknown }).file_path;
        if (tool.annotations.readOnlyHint || typeof path !== 'string') return await tool.run(parsed, context);
        // The key (the file's canonical path) is found only when another call is queued or running.
        return await changes.run(
          () => fileKey(gate, path),
          () => tool.run(parsed, context),
          signal,
        );
      } catch (error) {
        return failure(tool.name, error);
      }
    },
  };
}

/**
 * The file a change tool's call is about, as the queue keys it: its canonical path, so two spellings of one
 * file wait for each other. Undefined for a path the guard refuses (the tool itself then reports why).
 */
async function fileKey(gate: Gate, path: string): Promise<string | undefined> {
  try {
    return (await gate.workspace.guard.resolve(path)).absolute;
  } catch {
    return undefined;
  }
}
