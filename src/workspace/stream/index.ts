/**
 * The streaming path, as the rest of editgate uses it: files of `streamThreshold` bytes or more are read
 * and edited without ever being held in memory. A Streamer opens such a file, indexes its lines, plans an
 * edit on its bytes (the plans below) and prepares the new content in a temp file beside it, with the
 * diff; the workspace commits it like any other change.
 *
 * Inside: read/ (chunks, the line index, line scans, reading lines, blocks of lines, text checks), edit/
 * (the plans of edit_file and edit_lines, exact and tolerant search, new text as bytes), write/ (the span
 * writer, temp files, the preview diff of spans, prepared changes).
 */
export { planLineEdits } from './edit/line-edits.js';
export { planStringEdit, type StringEditRequest } from './edit/string-edit.js';
export { DEFAULT_STREAM_THRESHOLD, MAX_STREAM_THRESHOLD } from './limits.js';
export { readRange } from './read/chunks.js';
export type { LineIndex, LineIndexCache } from './read/line-index.js';
export { type ReadLine, readLines } from './read/read-lines.js';
export {
  type ChangePlan,
  type PartialDiff,
  type PlanContext,
  type StreamedChange,
  Streamer,
  type StreamerOptions,
  type StreamFile,
  type StreamPlanner,
} from './streamer.js';
export { discardPrepared, type PreparedWrite } from './write/prepared.js';
export type { Span } from './write/span-writer.js';
