import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ErrorCode, isEditgateError } from '../../src/core/errors.js';
import { Guard, type ResolvedPath } from '../../src/workspace/guard.js';

let base: string; // real temp folder holding everything
let root: string; // base/app: the workspace
let outside: string; // base/app-secrets: a sibling whose name starts with the root's
let guard: Guard;
const servers: net.Server[] = [];

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'editgate-guard-')));
  root = path.join(base, 'app');
  outside = path.join(base, 'app-secrets');
  await fs.mkdir(path.join(root, 'src'), { recursive: true });
  await fs.mkdir(outside);
  await fs.writeFile(path.join(root, 'src', 'a.ts'), 'export {};\n');
  await fs.writeFile(path.join(outside, 'secret.txt'), 'hunter2\n');
  guard = await Guard.create({ roots: [root] });
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
  await fs.rm(base, { recursive: true, force: true });
});

/** The call must fail with `code`, and neither message nor details may mention anything outside. */
async function refused(promise: Promise<unknown>, code: ErrorCode, secrets: string[] = []) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isEditgateError(error)) throw new Error(`expected an EditgateError ${code}, got ${String(error)}`);
  expect(error.code, error.message).toBe(code);
  const text = error.message + JSON.stringify(error.details);
  for (const secret of [outside, 'hunter2', ...secrets]) {
    expect(text).not.toContain(secret);
  }
  return error;
}

async function symlink(target: string, at: string) {
  await fs.symlink(target, path.join(root, at));
}

describe('Guard.create', () => {
  it('canonicalises roots and refuses missing roots, files and empty lists', async () => {
    expect(guard.roots).toEqual([root]);
    await refused(Guard.create({ roots: [] }), 'INVALID_INPUT');
    await refused(Guard.create({ roots: [path.join(base, 'nope')] }), 'INVALID_INPUT');
    await refused(Guard.create({ roots: [path.join(root, 'src', 'a.ts')] }), 'INVALID_INPUT');
    await refused(Guard.create({ roots: [''] }), 'INVALID_INPUT');
  });

  it('accepts a root that is itself a symlink and canonicalises it', async () => {
    const linked = path.join(base, 'linked-app');
    await fs.symlink(root, linked);
    const g = await Guard.create({ roots: [linked] });
    expect(g.roots).toEqual([root]);
    const want = path.join(root, 'src', 'a.ts');
    expect((await g.resolve('src/a.ts')).absolute).toBe(want);
    expect((await g.resolve(path.join(linked, 'src', 'a.ts'))).absolute).toBe(want);
    expect((await g.resolve(want)).absolute).toBe(want);
    await refused(g.resolve('../app-secrets/secret.txt'), 'OUTSIDE_ROOT');
    await refused(g.resolve(path.join(linked, '..', 'app-secrets', 'secret.txt')), 'OUTSIDE_ROOT');
  });
});

describe('resolve inside the root', () => {
  it('resolves an existing file relative to the root, with the identity of the file it checked', async () => {
    const checked = lstatSync(path.join(root, 'src', 'a.ts'));
    expect(await guard.resolve('src/a.ts')).toEqual<ResolvedPath>({
      absolute: path.join(root, 'src', 'a.ts'),
      root,
      relative: 'src/a.ts',
      exists: true,
      identity: { dev: checked.dev, ino: checked.ino },
    });
  });

  it('resolves an absolute path inside the root', async () => {
    const r = await guard.resolve(path.join(root, 'src', 'a.ts'));
    expect(r.relative).toBe('src/a.ts');
  });

  it('resolves a new file under missing folders', async () => {
    expect(await guard.resolve('new/deep/file.txt')).toEqual<ResolvedPath>({
      absolute: path.join(root, 'new', 'deep', 'file.txt'),
      root,
      relative: 'new/deep/file.txt',
      exists: false,
    });
  });

  it('normalises ./, // and a/../b that stay inside', async () => {
    for (const input of ['./src/a.ts', 'src//a.ts', './/src/./a.ts', 'x/../src/a.ts', 'src/../src/a.ts']) {
      expect((await guard.resolve(input)).relative, input).toBe('src/a.ts');
    }
    expect((await guard.resolve('../app/src/a.ts')).relative).toBe('src/a.ts');
  });

  it('does not expand ~', async () => {
    const r = await guard.resolve('~/notes.txt');
    expect(r.absolute).toBe(path.join(root, '~', 'notes.txt'));
    expect(r.exists).toBe(false);
  });

  it('treats Unicode look-alikes of / and .. as plain names', async () => {
    const cases: [string, string][] = [
      ['\u2024\u2024/x', '\u2024\u2024/x'], // one-dot leaders
      ['\uFF0E\uFF0E/x', '\uFF0E\uFF0E/x'], // fullwidth full stops
      ['..\uFF0Fapp-secrets\uFF0Fsecret', '..\uFF0Fapp-secrets\uFF0Fsecret'], // fullwidth solidus
      ['src\uFF0F..\uFF0F..\uFF0Fx', 'src\uFF0F..\uFF0F..\uFF0Fx'],
      ['..\u2215x', '..\u2215x'], // division slash
    ];
    for (const [input, relative] of cases) {
      const r = await guard.resolve(input);
      expect(r.relative, input).toBe(relative);
      expect(r.absolute.startsWith(root + path.sep), input).toBe(true);
    }
  });

  it('follows a symlink inside the root to its target', async () => {
    await symlink('src/a.ts', 'link.ts');
    await symlink('src', 'lib');
    await fs.mkdir(path.join(root, 'deep'));
    await symlink('../src/a.ts', 'deep/up.ts');
    for (const input of ['link.ts', 'lib/a.ts', 'deep/up.ts']) {
      const r = await guard.resolve(input);
      expect(r.absolute, input).toBe(path.join(root, 'src', 'a.ts'));
      expect(r.relative).toBe('src/a.ts');
      expect(r.exists).toBe(true);
    }
    expect((await guard.resolve('lib/new.ts')).absolute).toBe(path.join(root, 'src', 'new.ts'));
  });

  it('resolves a dangling symlink that points inside to its missing target', async () => {
    await symlink('src/later.ts', 'dangling.ts');
    expect(await guard.resolve('dangling.ts')).toEqual<ResolvedPath>({
      absolute: path.join(root, 'src', 'later.ts'),
      root,
      relative: 'src/later.ts',
      exists: false,
    });
  });

  it('allows a link that climbs to an ancestor and comes straight back into the root', async () => {
    await symlink('..', 'up');
    expect((await guard.resolve('up/app/src/a.ts')).absolute).toBe(path.join(root, 'src', 'a.ts'));
    await refused(guard.resolve('up/app-secrets/secret.txt'), 'OUTSIDE_ROOT');
    await refused(guard.resolve('up/app-secrets/new.txt'), 'OUTSIDE_ROOT');
  });

  it('accepts names up to 255 bytes', async () => {
    expect((await guard.resolve('n'.repeat(255))).exists).toBe(false);
  });
});

describe('resolve refuses escapes', () => {
  it('refuses .. escapes', async () => {
    for (const input of [
      '..',
      '../app-secrets/secret.txt',
      'src/../../app-secrets/secret.txt',
      '../../../../etc/passwd',
    ]) {
      await refused(guard.resolve(input), 'OUTSIDE_ROOT');
    }
  });

  it('refuses absolute paths elsewhere, the sibling-prefix folder included', async () => {
    for (const input of [
      '/etc/passwd',
      path.join(outside, 'secret.txt'),
      outside,
      path.join(outside, 'new.txt'),
      base,
      `${root}-secrets/secret.txt`,
      '//etc/passwd',
    ]) {
      await refused(guard.resolve(input), 'OUTSIDE_ROOT', ['/etc']);
    }
  });

  it('gives the same message whether the outside path exists or not', async () => {
    const a = await refused(guard.resolve(path.join(outside, 'secret.txt')), 'OUTSIDE_ROOT');
    const b = await refused(guard.resolve(path.join(outside, 'missing.txt')), 'OUTSIDE_ROOT');
    const c = await refused(guard.resolve(path.join(base, 'no-such-folder', 'x')), 'OUTSIDE_ROOT');
    expect(b.message).toBe(a.message);
    expect(c.message).toBe(a.message);
    expect(a.message).toContain(`inside the workspace root ${root}`);
    expect(a.message).toContain('Use a path relative to');
  });

  it('refuses a symlink to a file outside, dangling or not, with the same message', async () => {
    await symlink(path.join(outside, 'secret.txt'), 'leak.txt');
    const a = await refused(guard.resolve('leak.txt'), 'OUTSIDE_ROOT');
    await fs.rm(path.join(root, 'leak.txt'));
    await symlink(path.join(outside, 'does-not-exist.txt'), 'leak.txt');
    const b = await refused(guard.resolve('leak.txt'), 'OUTSIDE_ROOT', ['does-not-exist']);
    expect(b.message).toBe(a.message);
    expect(a.message).toContain('symbolic link');
  });

  it('refuses a dangling relative symlink that points outside', async () => {
    await symlink('../app-secrets/nothing-here.txt', 'dangle.txt');
    await refused(guard.resolve('dangle.txt'), 'OUTSIDE_ROOT', ['nothing-here']);
    await symlink('../../../../../../../../tmp/x', 'dangle2.txt');
    await refused(guard.resolve('dangle2.txt'), 'OUTSIDE_ROOT', ['/tmp/x']);
  });

  it('never looks outside: a chain through outside is refused even if it leads back in', async () => {
    await fs.symlink(path.join(root, 'src', 'a.ts'), path.join(outside, 'back'));
    await symlink(path.join(outside, 'back'), 'via-outside.ts');
    await refused(guard.resolve('via-outside.ts'), 'OUTSIDE_ROOT', ['back']);
    // A link loop out there would be an ELOOP if it were followed; the answer must not depend on it.
    await fs.symlink('loop', path.join(outside, 'loop'));
    await symlink(path.join(outside, 'loop', 'x'), 'into-loop');
    const a = await refused(guard.resolve('into-loop'), 'OUTSIDE_ROOT', ['loop/x']);
    expect(a.message).toContain('symbolic link');
  });

  it('refuses paths under a symlinked folder that points outside', async () => {
    await symlink(outside, 'out');
    await refused(guard.resolve('out/secret.txt'), 'OUTSIDE_ROOT');
    await refused(guard.resolve('out/new/file.txt'), 'OUTSIDE_ROOT');
    await refused(guard.resolve('out'), 'OUTSIDE_ROOT');
  });

  it('refuses /dev/null reached through a symlink', async () => {
    await symlink('/dev/null', 'null');
    await refused(guard.resolve('null'), 'OUTSIDE_ROOT', ['/dev']);
  });

  it('refuses a symlink loop', async () => {
    await symlink('b', 'a');
    await symlink('a', 'b');
    await refused(guard.resolve('a'), 'INVALID_INPUT');
  });

  it('refuses a file with more than one hard link', async () => {
    await fs.link(path.join(outside, 'secret.txt'), path.join(root, 'alias.txt'));
    const e = await refused(guard.resolve('alias.txt'), 'OUTSIDE_ROOT');
    expect(e.message).toContain('hard links');
    await fs.link(path.join(root, 'src', 'a.ts'), path.join(root, 'b.ts'));
    await refused(guard.resolve('src/a.ts'), 'OUTSIDE_ROOT');
    await refused(guard.resolve('b.ts'), 'OUTSIDE_ROOT');
  });

  it('refuses a FIFO', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const e = await refused(guard.resolve('pipe'), 'INVALID_INPUT');
    expect(e.message).toContain('not a regular file');
  });

  it('refuses a socket', async () => {
    const server = net.createServer();
    servers.push(server);
    await new Promise<void>((done) => server.listen(path.join(root, 'sock'), done));
    const e = await refused(guard.resolve('sock'), 'INVALID_INPUT');
    expect(e.message).toContain('not a regular file');
  });

  it('refuses a device file inside the root', async (ctx) => {
    try {
      execFileSync('mknod', [path.join(root, 'null'), 'c', '1', '3'], { stdio: 'ignore' });
    } catch {
      ctx.skip(); // needs root and a filesystem that allows device nodes
    }
    const e = await refused(guard.resolve('null'), 'INVALID_INPUT');
    expect(e.message).toContain('device');
  });

  it('refuses folders', async () => {
    for (const input of ['src', 'src/', '.', './', root, path.join(root, 'src')]) {
      await refused(guard.resolve(input), 'IS_DIRECTORY');
    }
  });

  it('refuses a trailing slash on a file and a file used as a folder', async () => {
    await refused(guard.resolve('src/a.ts/'), 'INVALID_INPUT');
    await refused(guard.resolve('src/a.ts/x'), 'INVALID_INPUT');
    await refused(guard.resolve('new.txt/'), 'INVALID_INPUT');
  });
});

describe('resolve refuses bad input', () => {
  it('refuses empty paths and NUL bytes', async () => {
    await refused(guard.resolve(''), 'INVALID_INPUT');
    await refused(guard.resolve('   '), 'INVALID_INPUT');
    const e = await refused(guard.resolve('src/a.ts\0.png'), 'INVALID_INPUT');
    expect(e.message).toContain('NUL');
  });

  it('refuses Windows drive and UNC paths', async () => {
    for (const input of ['C:\\Windows\\x', 'C:/x', 'c:', '\\\\server\\share\\x', '\\\\?\\C:\\x']) {
      const e = await refused(guard.resolve(input), 'INVALID_INPUT', ['Windows\\x', 'server\\share']);
      expect(e.message.toLowerCase()).toContain('use a path relative to the workspace root');
    }
  });

  it('refuses names over 255 bytes and paths over 4096 bytes', async () => {
    const long = await refused(guard.resolve(`src/${'n'.repeat(256)}.ts`), 'NAME_TOO_LONG');
    expect(long.message).toContain('255 bytes');
    await refused(guard.resolve('é'.repeat(128)), 'NAME_TOO_LONG'); // 256 bytes in UTF-8
    const deep = await refused(guard.resolve('d/'.repeat(2100) + 'f.txt'), 'NAME_TOO_LONG');
    expect(deep.message).toContain('too long');
    // Short input, but too long once joined to the root.
    await refused(guard.resolve(`${'abcdefgh/'.repeat(454)}f`), 'NAME_TOO_LONG');
  });
});

describe('deny rules', () => {
  beforeEach(async () => {
    await fs.mkdir(path.join(root, '.git', 'hooks'), { recursive: true });
    await fs.writeFile(path.join(root, '.git', 'config'), '[core]\n');
    await fs.mkdir(path.join(root, 'vendor', 'lib', '.git'), { recursive: true });
    await fs.writeFile(path.join(root, 'vendor', 'lib', '.git', 'config'), '[core]\n');
    await fs.writeFile(path.join(root, '.gitignore'), 'dist\n');
  });

  it('refuses .git and nested .git folders by default', async () => {
    for (const input of [
      '.git/config',
      '.git/hooks/pre-commit',
      '.git',
      'vendor/lib/.git/config',
      'x/.git',
    ]) {
      const e = await refused(guard.resolve(input), 'OUTSIDE_ROOT');
      expect(e.message, input).toContain('denied by workspace rule');
    }
    await refused(guard.resolve(path.join(root, '.git', 'config')), 'OUTSIDE_ROOT');
    expect((await guard.resolve('.gitignore')).exists).toBe(true);
    expect((await guard.resolve('.github/workflows/ci.yml')).exists).toBe(false);
  });

  it('refuses a denied file reached through a link, and a link through a denied name', async () => {
    await symlink('.git/config', 'cfg');
    await symlink('.git', 'g');
    await refused(guard.resolve('cfg'), 'OUTSIDE_ROOT');
    await refused(guard.resolve('g/hooks/post-checkout'), 'OUTSIDE_ROOT');
    // .git as a link to an innocent-looking folder is still .git as far as the rule goes.
    await fs.mkdir(path.join(root, 'sub', 'gitdir'), { recursive: true });
    await fs.symlink('gitdir', path.join(root, 'sub', '.git'));
    await refused(guard.resolve('sub/.git/config'), 'OUTSIDE_ROOT');
  });

  it('uses the rules given instead of the default list; .git and editgate.config.json stay refused whatever the list (issue #13)', async () => {
    const g = await Guard.create({ roots: [root], deny: ['secrets/**', '**/*.pem'] });
    const e = await refused(g.resolve('secrets/prod.env'), 'OUTSIDE_ROOT');
    expect(e.message).toContain("denied by workspace rule 'secrets/**'");
    await refused(g.resolve('src/deep/key.pem'), 'OUTSIDE_ROOT');
    // An empty list (a config's "deny": []) reopens neither: a model could plant a git hook or rewrite the rules.
    const open = await Guard.create({ roots: [root], deny: [] });
    for (const target of [
      '.git/config',
      '.git/hooks/pre-commit',
      'editgate.config.json',
      'sub/editgate.config.json',
    ])
      await refused(open.resolve(target), 'OUTSIDE_ROOT');
    expect((await open.resolve('src/a.ts')).exists).toBe(true);
  });
});

describe('multiple roots', () => {
  it('resolves relative paths against the first root and absolute ones in any root', async () => {
    const second = path.join(base, 'other');
    await fs.mkdir(second);
    await fs.writeFile(path.join(second, 'b.txt'), 'b\n');
    const g = await Guard.create({ roots: [root, second] });
    expect(await g.resolve(path.join(second, 'b.txt'))).toEqual<ResolvedPath>({
      absolute: path.join(second, 'b.txt'),
      root: second,
      rootName: 'other',
      relative: 'b.txt',
      exists: true,
      identity: {
        dev: lstatSync(path.join(second, 'b.txt')).dev,
        ino: lstatSync(path.join(second, 'b.txt')).ino,
      },
    });
    expect((await g.resolve('src/a.ts')).root).toBe(root);
    await symlink(path.join(second, 'b.txt'), 'to-second.txt');
    expect((await g.resolve('to-second.txt')).root).toBe(second);
    const e = await refused(g.resolve(path.join(outside, 'secret.txt')), 'OUTSIDE_ROOT');
    expect(e.message).toContain(second);
  });
});

describe('recheck', () => {
  it('passes when nothing changed, for existing and new files', async () => {
    await guard.recheck(await guard.resolve('src/a.ts'));
    await guard.recheck(await guard.resolve('src/new.ts'));
    await guard.recheck(await guard.resolve('missing/folder/new.ts'));
  });

  it('refuses when a folder on the way was swapped for a link to a folder outside', async () => {
    await fs.mkdir(path.join(root, 'docs'));
    await fs.writeFile(path.join(root, 'docs', 'secret.txt'), 'inside\n');
    const existing = await guard.resolve('docs/secret.txt');
    const fresh = await guard.resolve('docs/new.txt');
    await fs.rename(path.join(root, 'docs'), path.join(root, 'docs-old'));
    await symlink(outside, 'docs');
    await refused(guard.recheck(existing), 'OUTSIDE_ROOT');
    await refused(guard.recheck(fresh), 'OUTSIDE_ROOT');
  });

  it('refuses when a folder link was re-pointed between resolve and recheck', async () => {
    await fs.mkdir(path.join(root, 'real'));
    await fs.writeFile(path.join(root, 'real', 'f.txt'), 'f\n');
    await symlink('real', 'current');
    const resolved = await guard.resolve('current/f.txt');
    expect(resolved.absolute).toBe(path.join(root, 'real', 'f.txt'));
    // The target folder itself becomes a link to outside: the write must not follow it.
    await fs.rename(path.join(root, 'real'), path.join(root, 'real-old'));
    await symlink(outside, 'real');
    await refused(guard.recheck(resolved), 'OUTSIDE_ROOT');
    // Re-pointed elsewhere inside: still not the place that was checked.
    await fs.rm(path.join(root, 'real'));
    await symlink('real-old', 'real');
    const e = await refused(guard.recheck(resolved), 'OUTSIDE_ROOT');
    expect(e.message).toContain('no longer leads to the same place');
  });

  it('refuses when the file became a symlink, a hard link, a FIFO or a folder', async () => {
    const target = path.join(root, 'src', 'a.ts');
    const resolved = await guard.resolve('src/a.ts');

    await fs.rm(target);
    await fs.symlink(path.join(outside, 'secret.txt'), target);
    await refused(guard.recheck(resolved), 'OUTSIDE_ROOT');

    await fs.rm(target);
    await fs.link(path.join(outside, 'secret.txt'), target);
    await refused(guard.recheck(resolved), 'OUTSIDE_ROOT');

    await fs.rm(target);
    execFileSync('mkfifo', [target]);
    await refused(guard.recheck(resolved), 'INVALID_INPUT');

    await fs.rm(target);
    await fs.mkdir(target);
    await refused(guard.recheck(resolved), 'IS_DIRECTORY');
  });

  it('refuses a ResolvedPath that does not lie in a root', async () => {
    const forged: ResolvedPath = {
      absolute: path.join(outside, 'secret.txt'),
      root,
      relative: '../app-secrets/secret.txt',
      exists: true,
    };
    await refused(guard.recheck(forged), 'OUTSIDE_ROOT');
    await refused(guard.recheck({ ...forged, root: outside }), 'OUTSIDE_ROOT');
  });
});

describe('never touches outside', () => {
  it('leaves the outside folder untouched and unread', async () => {
    const before = await fs.stat(path.join(outside, 'secret.txt'));
    await fs.chmod(outside, 0o000); // as root this does not stop access, but no error may differ either way
    try {
      await symlink(path.join(outside, 'secret.txt'), 'l1');
      await refused(guard.resolve('l1'), 'OUTSIDE_ROOT');
      await refused(guard.resolve(path.join(outside, 'secret.txt')), 'OUTSIDE_ROOT');
    } finally {
      await fs.chmod(outside, 0o755);
    }
    const after = await fs.stat(path.join(outside, 'secret.txt'));
    expect(after.mtimeMs).toBe(before.mtimeMs);
  });
});
