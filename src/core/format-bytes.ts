/**
 * Sizes as people read them, in one place so every message and screen says a size the same way.
 * - 'words' (default; messages for people and models): "12 bytes", "640.0 KB", "1.5 GB".
 * - 'compact' (terminal screens, where columns are short): "12 B", "640 KB", "1.5 GB" (a decimal only
 *   below 10).
 */
export function formatBytes(size: number, style: 'words' | 'compact' = 'words'): string {
  if (size < 1024) {
    if (style === 'compact') return `${size} B`;
    return `${size} ${size === 1 ? 'byte' : 'bytes'}`;
  }
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const figure = style === 'compact' && value >= 10 ? String(Math.round(value)) : value.toFixed(1);
  return `${figure} ${units[unit]}`;
}
