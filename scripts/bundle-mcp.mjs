// Builds dist/cli/mcp-server.bundle.mjs from the compiled dist/cli/mcp-entry.js: the MCP server and every
// module it loads in one file, which main.ts runs for `editgate mcp` (see src/cli/mcp-entry.ts for why).
// Run after tsc. Files it reads next to itself (package.json, the web page's assets) are found by paths
// that hold from dist/cli/ as from their own folders.
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

// And dist/cli/hook.bundle.mjs from dist/cli/commands/hook.js: `editgate hook`, which a coding agent starts
// for every tool call (src/hooks/), so its start-up is paid per edit.
const entries = [
  ['../dist/cli/mcp-entry.js', '../dist/cli/mcp-server.bundle.mjs'],
  ['../dist/cli/commands/hook.js', '../dist/cli/hook.bundle.mjs'],
];

// The secret check's rules (src/gate/secretlint-rules.ts) are loaded when a file is read or a change proposed, never
// on start-up: their module is kept out of the two bundles and is itself replaced by one bundled file, which loads
// in about half the time of secretlint's modules one by one.
const secretlintRules = new URL('../dist/gate/secretlint-rules.js', import.meta.url).pathname;
await build({
  entryPoints: [secretlintRules],
  outfile: secretlintRules,
  allowOverwrite: true,
  bundle: true,
  minify: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  banner: {
    js: "import { createRequire as editgateCreateRequire } from 'node:module';\nconst require = editgateCreateRequire(import.meta.url);",
  },
  legalComments: 'eof',
  logLevel: 'warning',
});
/** Imports of secretlint-rules.js stay imports, of dist/gate/secretlint-rules.js from dist/cli/. */
const secretlintRulesOutside = {
  name: 'secretlint-rules-outside',
  setup(build) {
    build.onResolve({ filter: /\/secretlint-rules\.js$/ }, () => ({
      path: '../gate/secretlint-rules.js',
      external: true,
    }));
  },
};

for (const [entry, outfile] of entries)
  await build({
    entryPoints: [new URL(entry, import.meta.url).pathname],
    outfile: new URL(outfile, import.meta.url).pathname,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Dependencies written as CommonJS call require(): give the bundle one (ESM has none).
    banner: {
      js: "import { createRequire as editgateCreateRequire } from 'node:module';\nconst require = editgateCreateRequire(import.meta.url);",
    },
    // The dependencies' licence comments stay in the file, gathered at its end.
    legalComments: 'eof',
    plugins: [secretlintRulesOutside],
    logLevel: 'warning',
  });

// The hook server's build identity (cli/hook-server.ts, hooks/hook-wire.ts): a hash of the hook bundle, so a
// server of one build never answers another build's hooks. And the shell entry the agents run
// (src/cli/hook-entry.sh), beside it: it reads the identity from that file.
const hookBundle = readFileSync(new URL('../dist/cli/hook.bundle.mjs', import.meta.url));
writeFileSync(
  new URL('../dist/cli/hook-identity', import.meta.url),
  `${createHash('sha256').update(hookBundle).digest('hex').slice(0, 16)}\n`,
);
copyFileSync(
  new URL('../src/cli/hook-entry.sh', import.meta.url),
  new URL('../dist/cli/hook-entry.sh', import.meta.url),
);
