// The tree-sitter grammars editgate reads code with (src/checks/grammars.ts: the chat's command policy and the
// syntax errors a change adds). Their packages are devDependencies (some build a native module at install
// time, which editgate does not use): each grammar's WebAssembly file and its package's licence are copied
// to dist/grammars/, so installing editgate runs no install script. The list is grammars.ts's own, read
// from the compiled module, so the two cannot drift.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';

const { GRAMMARS } = await import(new URL('../dist/checks/grammars.js', import.meta.url));
const require = createRequire(import.meta.url);
const to = new URL('../dist/grammars/', import.meta.url);
mkdirSync(to, { recursive: true });
const licences = new Set();
for (const { file, from } of Object.values(GRAMMARS)) {
  copyFileSync(require.resolve(`${from}/${file}`), new URL(file, to));
  const packageName = from.startsWith('@') ? from.split('/').slice(0, 2).join('/') : from.split('/')[0];
  if (licences.has(packageName)) continue;
  licences.add(packageName);
  copyFileSync(
    require.resolve(`${packageName}/LICENSE`),
    new URL(`${packageName.replace('/', '+')}.LICENSE`, to),
  );
}
