import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { repoRoot } from '#lib/paths';
import { sameCode } from './comments.ts';

/** git in `root`, with `env` added to this process's environment; its output as written. */
const gitOutput = (root: string, args: string[], env?: NodeJS.ProcessEnv) =>
  execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: env && { ...process.env, ...env },
  });
/** git in `root`; its output trimmed. */
const gitIn = (root: string, args: string[], env?: NodeJS.ProcessEnv) => gitOutput(root, args, env).trim();
const git = (...args: string[]) => gitIn(repoRoot, args);

/** The commit `ref` names, or undefined when there is none. */
export function commitOf(ref: string): string | undefined {
  try {
    return git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
  } catch {
    return undefined;
  }
}

/**
 * The files that differ between two commits (a snapshot of the working tree among them, so its uncommitted
 * and new files too): modified, added, deleted, renamed (both names).
 */
export function changedBetween(since: string, to: string, root = repoRoot): string[] {
  // NUL-separated: a name git would quote (non-ASCII, a newline, a quote) comes back as the file's own name.
  return gitOutput(root, ['diff', '--name-only', '-z', '--no-renames', since, to]).split('\0').filter(Boolean).sort();
}

/**
 * Where a new, untracked file is part of the project: its own source folders. Anything else untracked
 * (a stray `.env`, a scratch file at the root) stays out of a snapshot, which a ref keeps.
 */
const SOURCE_FOLDERS = ['bin', 'docs', 'events', 'functions', 'lib', 'test'] as const;

/** The tree a commit holds. */
export const treeOf = (commit: string) => git('rev-parse', `${commit}^{tree}`);

/**
 * The tree of the working tree as it is (tracked files as they are now; new files under SOURCE_FOLDERS;
 * ignored ones out), written with an index of its own: the real one is untouched.
 */
export function workingTree(root = repoRoot): string {
  const dir = mkdtempSync(join(tmpdir(), 'test-map-index-'));
  const index = { GIT_INDEX_FILE: join(dir, 'index') };
  try {
    // A copy of the real index, its times kept: git trusts an entry's stats only when they are older than
    // the index itself, so a copy dated now would hide an edit of the same size made in the same second.
    const real = resolve(root, gitIn(root, ['rev-parse', '--git-path', 'index']));
    copyFileSync(real, index.GIT_INDEX_FILE);
    const { atime, mtime } = statSync(real);
    utimesSync(index.GIT_INDEX_FILE, atime, mtime);
    gitIn(root, ['add', '--update'], index);
    const folders = SOURCE_FOLDERS.filter((folder) => existsSync(join(root, folder)));
    if (folders.length) gitIn(root, ['add', '--', ...folders], index);
    return gitIn(root, ['write-tree'], index);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A commit of the working tree (workingTree) on top of HEAD; HEAD itself when nothing differs. The branch
 * is untouched. Nothing keeps it from git's garbage collection: keepSnapshot does, for the map's.
 */
export function snapshotCommit(root = repoRoot): string {
  const tree = workingTree(root);
  if (tree === gitIn(root, ['rev-parse', 'HEAD^{tree}'])) return gitIn(root, ['rev-parse', 'HEAD']);
  // Signed by the tool (a clone may have no identity set): the commit is this worktree's alone, never pushed.
  const who = { GIT_AUTHOR_NAME: 'test:changed', GIT_AUTHOR_EMAIL: 'test-changed@localhost' };
  return gitIn(root, ['commit-tree', tree, '-p', 'HEAD', '-m', 'test:changed: the working tree its map was recorded at'], {
    ...who,
    GIT_COMMITTER_NAME: who.GIT_AUTHOR_NAME,
    GIT_COMMITTER_EMAIL: who.GIT_AUTHOR_EMAIL,
  });
}

/** Keeps the map's commit from git's garbage collection, under a ref of this worktree (refs/worktree/test-map). */
export function keepSnapshot(commit: string, root = repoRoot): void {
  gitIn(root, ['update-ref', 'refs/worktree/test-map', commit]);
}

/** Where HEAD left `base`: their merge base. */
export function forkPoint(base: string): string {
  return git('merge-base', base, 'HEAD');
}

/** Every test file of the suite (test/**\/*.test.ts), repository-relative, sorted. */
export function testFiles(dir = join(repoRoot, 'test')): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return testFiles(path);
      return e.name.endsWith('.test.ts') ? [relative(repoRoot, path)] : [];
    })
    .sort();
}

/** Whether `path` is the same program at `to` as at `commit` (its comments and layout aside); false when it is new or gone. */
export function sameAs(commit: string, path: string, to: string): boolean {
  const at = (ref: string) => {
    try {
      return execFileSync('git', ['show', `${ref}:${path}`], {
        cwd: repoRoot,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        maxBuffer: 1 << 26,
      });
    } catch {
      return undefined;
    }
  };
  const before = at(commit);
  const after = at(to);
  return before !== undefined && after !== undefined && sameCode(before, after, path);
}
