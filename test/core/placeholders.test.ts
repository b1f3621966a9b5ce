import { describe, expect, it } from 'vitest';
import { checkNoNewPlaceholders, placeholderOf } from '../../src/core/placeholders.js';

describe('placeholderOf', () => {
  it('recognises the lines models write for code they left out', () => {
    for (const line of [
      '// ... rest of the code unchanged',
      '    // ... existing code ...',
      '# ... rest of the file',
      '/* ... */ ',
      '  // ...',
      '(existing methods)',
      '[... remaining implementation ...]',
      '<!-- ... rest of the component unchanged ... -->',
      '  // Other methods remain the same...',
      '# existing imports',
      '{/* ... rest of the JSX unchanged ... */}',
    ]) {
      expect(placeholderOf(line), line).not.toBeNull();
    }
  });

  it('leaves code and ordinary comments alone', () => {
    for (const line of [
      'const rest = items.slice(1); // rest of the items',
      '...args,',
      'def stub(): ...',
      '    ...',
      '// returns the value unchanged',
      '// wait for the stream...',
      '(a + b) * c',
      '// TODO: handle errors',
      'print("... rest of the code unchanged")',
      '',
    ]) {
      expect(placeholderOf(line), line).toBeNull();
    }
  });
});

describe('checkNoNewPlaceholders', () => {
  it('refuses a placeholder the old text did not have, naming the line and what to do', () => {
    expect(() =>
      checkNoNewPlaceholders('a();\nb();\n', 'a();\n// ... rest of the code unchanged\n', 'new_string'),
    ).toThrowError(/new_string line 2 is a placeholder.*Write the real code/s);
  });

  it('allows a placeholder the old text already had, and text without any', () => {
    const old = 'x();\n// ... existing code ...\n';
    expect(() =>
      checkNoNewPlaceholders(old, 'y();\n  // ... existing code ...\n', 'new_string'),
    ).not.toThrow();
    expect(() => checkNoNewPlaceholders('a', 'b', 'content')).not.toThrow();
  });
});
