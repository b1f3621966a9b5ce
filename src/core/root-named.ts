/**
 * A workspace-relative path as a person reads it. With several roots the same relative path can lie in
 * each (`src/app.ts` in two checkouts), so a question that named only the path would look the same for
 * both (issue #13): there the root's short name stands beside the path. With one root, `root` is absent
 * and the path is shown alone.
 */
export function pathInRoot(path: string, root?: string): string {
  return root === undefined ? path : `${path} (root ${root})`;
}

/**
 * Short names that tell canonical roots apart: each root's last folder name, or as many trailing folder
 * names as it takes to differ from every other root's (the whole path when nothing shorter does).
 */
export function rootNames(roots: readonly string[]): string[] {
  const parts = roots.map((root) => root.split('/').filter((name) => name !== ''));
  return roots.map((root, index) => {
    const own = parts[index]!;
    for (let count = 1; count <= own.length; count++) {
      const name = own.slice(-count).join('/');
      const clashes = parts.some((other, at) => at !== index && tail(other, count) === name);
      if (!clashes) return name;
    }
    return root;
  });
}

function tail(parts: readonly string[], count: number): string {
  return count > parts.length ? '' : parts.slice(-count).join('/');
}
