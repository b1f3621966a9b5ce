/**
 * Which lines of a file the model has seen through read_file, for the content it saw (by hash). Reading a
 * long file in pages with offset/limit counts as a full read once the pages cover every line, so a
 * 5,000-line file can be edited without one giant read.
 */
export class ReadCoverage {
  private readonly seen = new Map<string, { hash: string; ranges: [number, number][] }>();

  /** Record lines [first, last] (1-based, inclusive) of content `hash`; true when every line is now covered. */
  add(path: string, hash: string, first: number, last: number, lineCount: number): boolean {
    let entry = this.seen.get(path);
    if (!entry || entry.hash !== hash) {
      entry = { hash, ranges: [] };
      this.seen.set(path, entry);
    }
    if (last >= first) entry.ranges = merge([...entry.ranges, [first, last]]);
    const only = entry.ranges[0];
    return (
      lineCount === 0 ||
      (entry.ranges.length === 1 && only !== undefined && only[0] <= 1 && only[1] >= lineCount)
    );
  }

  forget(path: string): void {
    this.seen.delete(path);
  }
}

function merge(ranges: [number, number][]): [number, number][] {
  ranges.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const range of ranges) {
    const last = out[out.length - 1];
    if (last && range[0] <= last[1] + 1) last[1] = Math.max(last[1], range[1]);
    else out.push([range[0], range[1]]);
  }
  return out;
}
