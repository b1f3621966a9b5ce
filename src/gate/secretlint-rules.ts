/**
 * secretlint and its recommended rule preset, the one module that imports them (secret-check.ts loads it when
 * a file is read or a change proposed). At build, scripts/bundle-mcp.mjs replaces dist/gate/secretlint-rules.js
 * with these packages bundled into one file: loading them module by module took about twice as long (0.4-0.6 s
 * against 0.2 s on a loaded machine), time a first edit could wait for (#28).
 */
export { lintSource } from '@secretlint/core';
export { creator } from '@secretlint/secretlint-rule-preset-recommend';
