// The web review page's script and stylesheet are plain files (not TypeScript), so tsc does not emit them:
// copy src/web/assets into dist/web/assets, where the server reads them next to its module.
import { cpSync, existsSync } from 'node:fs';

const from = new URL('../src/web/assets', import.meta.url);
const to = new URL('../dist/web/assets', import.meta.url);
if (existsSync(from)) cpSync(from, to, { recursive: true });
