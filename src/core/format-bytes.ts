/**
 * "1.5 GB", "640 KB", "12 bytes": sizes in messages for people and models. In core so the decoder's
 * messages (text.ts) and the streaming path's say a size the same way.
 */
export function formatBytes(size: number): string {
  if (size < 1024) return `${size} ${size === 1 ? 'byte' : 'bytes'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
