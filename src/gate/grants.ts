/**
 * Grants a person made during one session ("this file from now on", "every edit from now on").
 * Grants live here, in the object a session owns, never in globals: two tool sets never share them.
 */
export class SessionGrants {
  private allChanges = false;
  private readonly changeFiles = new Set<string>();
  private allReads = false;
  private readonly readFiles = new Set<string>();

  grantFile(path: string): void {
    this.changeFiles.add(path);
  }

  grantAll(): void {
    this.allChanges = true;
  }

  grantReadFile(path: string): void {
    this.readFiles.add(path);
  }

  grantAllReads(): void {
    this.allReads = true;
  }

  coversChange(path: string): boolean {
    return this.allChanges || this.changeFiles.has(path);
  }

  coversRead(path: string): boolean {
    // Whoever may change a file may read it.
    return this.allReads || this.readFiles.has(path) || this.coversChange(path);
  }

  /** What has been granted, for display ("allowed for this session: src/a.ts, all edits"). */
  get grants(): { allChanges: boolean; files: string[]; allReads: boolean; readFiles: string[] } {
    return {
      allChanges: this.allChanges,
      files: [...this.changeFiles].sort(),
      allReads: this.allReads,
      readFiles: [...this.readFiles].sort(),
    };
  }

  reset(): void {
    this.allChanges = false;
    this.changeFiles.clear();
    this.allReads = false;
    this.readFiles.clear();
  }
}
