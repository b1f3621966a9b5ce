// The editgate library: the tools for agents, the gate they go through, and the pure edit core.

export type { LanguageServerConfig } from './checks/language-server-config.js';
export { type Diff, type DiffLine, diffLines, formatUnifiedDiff, type Hunk } from './core/diff.js';
export { applySomeHunks, type PlacedHunk } from './core/diff-hunks.js';
export type { LineEdit, StringEdit, StringEditResult } from './core/edit.js';
export { applyLineEdits, applyStringEdits } from './core/edit.js';
export { EditgateError, type ErrorCode, isEditgateError } from './core/errors.js';
export type { Finding } from './core/findings.js';
export type { MatchTier } from './core/match.js';
export { decodeText, defaultCodec, encodeText, type TextCodec } from './core/text.js';
export type {
  ApprovalFile,
  ApprovalRequest,
  Approver,
  Decision,
  EditedDecision,
  HunkChoices,
  HunkDecision,
} from './gate/approval.js';
export type { ChangeCheck, CheckContext } from './gate/checks.js';
export {
  closeLanguageServers,
  type LanguageServerCheckOptions,
  languageServerCheck,
} from './gate/diagnostics-check.js';
export { type AnsweredElsewhere, type AnswerSource, firstAnswer } from './gate/first-answer.js';
export type { Screening } from './gate/gate.js';
export { SessionGrants } from './gate/grants.js';
export type {
  AfterCallHook,
  AfterChangeHook,
  BeforeCallHook,
  BeforeChangeHook,
  CallWithoutDiff,
  Hooks,
  WrittenChange,
  /** The old name of WrittenChange (what an after-change hook sees). */
  WrittenChange as HookChangeOutcome,
} from './gate/hooks.js';
export {
  type FileHunks,
  type HunkPlace,
  hunkChoiceProblem,
  type RejectedHunk,
} from './gate/hunk-decision.js';
export type { Policy, PolicyAction, PolicyRule } from './gate/policy.js';
export type { Proposal, ProposalKind, ProposedFile } from './gate/proposal.js';
export {
  type ChangeDetails,
  type ChangedFileDetails,
  changeDetailsOf,
  changedLines,
  type ReadDetails,
  readDetails,
  type ToolDetailsByName,
} from './tools/details.js';
export {
  type CallDescription,
  type CreateEditToolsOptions,
  createEditTools,
  describeCall,
  type EditTools,
  type ExecuteOptions,
  TOOL_NAMES,
  type ToolDefinition,
} from './tools/index.js';
export type { ToolFailure, ToolResult, ToolSuccess } from './tools/result.js';
