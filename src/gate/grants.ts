/**
 * Grants a person made during one session ("this file from now on", "every edit from now on").
 * Grants live here, in the object a session owns, never in globals: two tool sets never share them.
 */
export class SessionGrants {
  private allChanges = false;
  /** Grants for one file, keyed by its canonical absolute path (with several roots, `src/app.ts` names
   * two files), each with the name it is shown by. */
  private readonly changeFiles = new Map<string, string>();
  private allReads = false;
  private readonly readFiles = new Map<string, string>();

  /** `key`: the file's canonical path; `shown`: how people see it (default: the key). */
  grantFile(key: string, shown: string = key): void {
    this.changeFiles.set(key, shown);
  }

  grantAll(): void {
    this.allChanges = true;
  }

  grantReadFile(key: string, shown: string = key): void {
    this.readFiles.set(key, shown);
  }

  grantAllReads(): void {
    this.allReads = true;
  }

  coversChange(key: string): boolean {
    return this.changeGrant(key) !== null;
  }

  /** Which grant covers a change to `key`: 'all' (every change), 'file' (this file), or none. */
  changeGrant(key: string): 'all' | 'file' | null {
    if (this.allChanges) return 'all';
    return this.changeFiles.has(key) ? 'file' : null;
  }

  coversRead(key: string): boolean {
    // Whoever may change a file may read it.
    return this.allReads || this.readFiles.has(key) || this.coversChange(key);
  }

  /** Forgets the grants of the file shown as `shown` (change and read); false when there was none. */
  revokeFile(shown: string): boolean {
    let found = false;
    for (const files of [this.changeFiles, this.readFiles])
      for (const [key, name] of files)
        if (name === shown || key === shown) {
          files.delete(key);
          found = true;
        }
    return found;
  }

  /** What has been granted, for display ("allowed for this session: src/a.ts, all edits"). */
  get grants(): { allChanges: boolean; files: string[]; allReads: boolean; readFiles: string[] } {
    return {
      allChanges: this.allChanges,
      files: [...this.changeFiles.values()].sort(),
      allReads: this.allReads,
      readFiles: [...this.readFiles.values()].sort(),
    };
  }

  reset(): void {
    this.allChanges = false;
    this.changeFiles.clear();
    this.allReads = false;
    this.readFiles.clear();
  }
}
