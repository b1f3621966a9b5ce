// The build starts from an empty dist/: tsc never deletes the output of a source file that was removed or
// renamed, and `npm pack` would ship it.
import { rmSync } from 'node:fs';

rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true });
