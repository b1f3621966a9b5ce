import { homedir } from 'node:os';
import path from 'node:path';

/** `~` and `~/x` as MCP servers commonly read them (the filesystem server does): the home folder. */
export function expandHome(given: string): string {
  if (given === '~') return homedir();
  return given.startsWith('~/') ? path.join(homedir(), given.slice(2)) : given;
}
