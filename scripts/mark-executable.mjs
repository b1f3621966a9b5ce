// tsc does not set the executable bit; npm links `bin` entries either way, but running
// dist/cli/main.js directly (and `npx editgate` from a local checkout) needs it.
import { chmodSync, existsSync } from 'node:fs';

const bin = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(bin)) chmodSync(bin, 0o755);
