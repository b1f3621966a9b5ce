// Run before every test file (vitest.config.ts setupFiles), also where files share a worker: what a test
// opened closes when it ends (../cleanup.ts), and the temp folders a file made go when the file ends
// (../temp-folder.ts).
import { afterAll, afterEach } from 'vitest';
import { runCleanups } from '../cleanup.js';
import { removeTempFolders } from '../temp-folder.js';

afterEach(runCleanups);
afterAll(removeTempFolders);
