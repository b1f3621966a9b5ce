// The pending change the review benches put on the page: TypeScript-like code, blocks of `block` changed
// lines between `block` unchanged ones (one hunk per block, as real changes have many), `changed` lines in
// all. The same seed every run, so runs compare.
import { random } from './lib.mjs';

export function reviewChange(changed, block) {
  const next = random(18);
  const before = [];
  const after = [];
  for (let n = 0; n < changed / block; n++) {
    for (let i = 0; i < block; i++) {
      const name = `value${n * block + i}`;
      before.push(`  const ${name} = compute(${Math.floor(next() * 1e6)}, '${name}', options.limit);`);
      after.push(before.at(-1).replace('options.limit', 'options.maxItems ?? 10'));
    }
    for (let i = 0; i < block; i++) {
      const line = `  if (state${n}.size > ${i}) state${n}.update(${i});`;
      before.push(line);
      after.push(line);
    }
  }
  const oldText = `export function run(options: Options) {\n${before.join('\n')}\n}\n`;
  const newText = `export function run(options: Options) {\n${after.join('\n')}\n}\n`;
  return { oldText, newText };
}
