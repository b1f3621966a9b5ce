/**
 * Schema fields several tools share, each with the description a model reads in the JSON Schema. A
 * field's description says what the value is and how it is written; the tool's description teaches the
 * rules.
 */
import { z } from 'zod';

/** The file a tool works on. `what`: the error for a missing or empty one ("give ..."). */
export function filePathField(what: string) {
  return z
    .string()
    .min(1, `give ${what}`)
    .describe('Path of the file, relative to the workspace root (or absolute inside it).');
}

export const encodingField = z
  .string()
  .min(1)
  .optional()
  .describe(
    'Text encoding of the file, e.g. "latin1" or "windows-1252". Omit for UTF-8 and UTF-16 (detected by their byte-order mark).',
  );

export const oldStringDescription =
  'The exact text to replace, copied from the file with its indentation and line breaks, without read_file line numbers. Empty only to create a file.';
export const newStringDescription = 'The text to put in its place (may be empty to delete old_string).';
export const replaceAllDescription =
  'Replace every occurrence of old_string instead of requiring exactly one. Default false.';
