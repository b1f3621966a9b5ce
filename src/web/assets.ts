import { readFile } from 'node:fs/promises';

/**
 * The page's script and stylesheet: small hand-written files next to this module (src/web/assets, copied to
 * dist/web/assets by the build), served as they are. No bundler, nothing fetched from a network: the page
 * works offline.
 */
const FILES: Record<string, { name: string; type: string }> = {
  '/assets/review.js': { name: 'review.js', type: 'text/javascript; charset=utf-8' },
  '/assets/sign-in.js': { name: 'sign-in.js', type: 'text/javascript; charset=utf-8' },
  '/assets/review.css': { name: 'review.css', type: 'text/css; charset=utf-8' },
};

/** The paths the assets are served at. */
export const ASSET_PATHS: readonly string[] = Object.keys(FILES);

export interface Asset {
  body: Buffer;
  type: string;
}

let loaded: Promise<Map<string, Asset>> | undefined;

export function loadAssets(): Promise<Map<string, Asset>> {
  loaded ??= Promise.all(
    Object.entries(FILES).map(async ([route, { name, type }]) => {
      // From dist/web/ and from dist/cli/ (the bundled MCP server, scripts/bundle-mcp.mjs) alike.
      const body = await readFile(new URL(`../web/assets/${name}`, import.meta.url));
      return [route, { body, type }] as const;
    }),
  ).then((entries) => new Map(entries));
  return loaded;
}
