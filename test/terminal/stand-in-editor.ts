import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A script standing in for the person's editor ($EDITOR) in pty tests of `e`: it records what it was given
 * (the file's name, its mode and its folder's, whether it has the terminal), then rewrites one text in the
 * file, or exits 1 (`fail`), or leaves it as it is (`keep`).
 */
export interface StandInEditor {
  /** The environment that makes editgate run it: EDITOR and what the script reads. */
  env: Record<string, string>;
  /** What it was given, one entry per run. */
  runs(): Array<{ name: string; mode: number; dirMode: number; tty: boolean }>;
}

const SCRIPT = `
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
const file = process.argv[2];
appendFileSync(process.env.STAND_IN_LOG, JSON.stringify({
  name: basename(file),
  mode: statSync(file).mode & 0o777,
  dirMode: statSync(dirname(file)).mode & 0o777,
  tty: process.stdin.isTTY === true && process.stdout.isTTY === true,
}) + '\\n');
const action = process.env.STAND_IN_ACTION;
if (action === 'fail') process.exit(1);
if (action !== 'keep') {
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replace(process.env.STAND_IN_FROM, process.env.STAND_IN_TO));
}
`;

export function standInEditor(
  folder: string,
  action: { from: string; to: string } | 'fail' | 'keep',
): StandInEditor {
  const script = join(folder, 'stand-in-editor.mjs');
  const log = join(folder, 'stand-in-editor.log');
  writeFileSync(script, SCRIPT);
  const env: Record<string, string> = {
    EDITOR: `'${process.execPath}' '${script}'`,
    VISUAL: '',
    STAND_IN_LOG: log,
    STAND_IN_ACTION: typeof action === 'string' ? action : 'replace',
  };
  if (typeof action !== 'string') {
    env.STAND_IN_FROM = action.from;
    env.STAND_IN_TO = action.to;
  }
  return {
    env,
    runs: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line))
        : [],
  };
}
