import { spawn } from 'node:child_process';

/**
 * Opens a link in the person's browser: $BROWSER when set, else the system's opener (xdg-open, open, or
 * start on Windows). The link is one argument, never parsed by a shell. Resolves to an error message
 * when nothing could be started (the link is printed anyway).
 */
export function openInBrowser(
  url: string,
  env: Record<string, string | undefined> = process.env,
): Promise<string | undefined> {
  const [command, args] = env.BROWSER
    ? [env.BROWSER, [url]]
    : process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { detached: true, stdio: 'ignore' });
      child.once('error', (error) => resolve(`could not open a browser (${command}: ${error.message})`));
      child.once('spawn', () => {
        child.unref();
        resolve(undefined);
      });
    } catch (error) {
      resolve(`could not open a browser (${error instanceof Error ? error.message : String(error)})`);
    }
  });
}
