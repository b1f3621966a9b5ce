// Run by `npm publish` (prepublishOnly): refuses to publish a package that is missing what a user of the
// registry needs to trust it. Each check says what to fix.
import { existsSync, readFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const problems = [];

if (!manifest.repository) {
  problems.push(
    'package.json has no "repository": set it to the public git URL of the project (and "homepage" and "bugs"), so users can find the source and report problems.',
  );
}
if (!existsSync(new URL('LICENSE', root))) problems.push('LICENSE is missing.');
const changelog = existsSync(new URL('CHANGELOG.md', root))
  ? readFileSync(new URL('CHANGELOG.md', root), 'utf8')
  : '';
const escaped = manifest.version.replaceAll('.', '\\.');
if (!new RegExp(`^## \\[${escaped}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm').test(changelog)) {
  problems.push(
    `CHANGELOG.md has no "## [${manifest.version}] - YYYY-MM-DD" section: move what "## [Unreleased]" lists under the version being published, dated.`,
  );
}

if (problems.length > 0) {
  console.error(`Not publishing editgate@${manifest.version}:\n${problems.map((p) => `- ${p}`).join('\n')}`);
  process.exit(1);
}
