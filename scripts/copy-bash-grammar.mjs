// The chat's command policy reads command lines with tree-sitter-bash's grammar (src/agent/tools/shell-syntax.ts).
// The grammar package builds a native module at install time, which the chat does not use: it is a
// devDependency, and its WebAssembly build (with its license) is copied next to the module that loads it,
// so installing editgate runs no install script.
import { copyFileSync, mkdirSync } from 'node:fs';

const from = new URL('../node_modules/tree-sitter-bash/', import.meta.url);
const to = new URL('../dist/agent/tools/', import.meta.url);
mkdirSync(to, { recursive: true });
copyFileSync(new URL('tree-sitter-bash.wasm', from), new URL('tree-sitter-bash.wasm', to));
copyFileSync(new URL('LICENSE', from), new URL('tree-sitter-bash.LICENSE', to));
