import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { repoRoot } from '#lib/paths';
import { sameCode } from './comments.ts';

const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const lines = (text: string) => text.split('\n').filter(Boolean);

/** The commit `ref` names, or undefined when there is none. */
export function commitOf(ref: string): string | undefined {
  try {
    return git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
  } catch {
    return undefined;
  }
}

/** Whether `commit` is HEAD or one of its ancestors. */
export function isAncestor(commit: string): boolean {
  try {
    git('merge-base', '--is-ancestor', commit, 'HEAD');
    return true;
  } catch {
    return false;
  }
}

/**
 * The files changed since `since` (a commit), the working tree's changes included: modified, staged,
 * added, deleted, renamed (both names), and new files git does not ignore.
 */
export function changedSince(since: string): string[] {
  const tracked = lines(git('diff', '--name-only', '--no-renames', since));
  const untracked = lines(git('ls-files', '--others', '--exclude-standard'));
  return [...new Set([...tracked, ...untracked])].sort();
}

/**
 * A commit of the working tree as it is (uncommitted and new files in, ignored ones out), on top of HEAD;
 * HEAD itself when nothing differs. It is kept from git's garbage collection under a ref of this worktree
 * (refs/worktree/test-map), so the map recorded at it can be compared with later states.
 */
export function snapshotCommit(root = repoRoot): string {
  const run = (args: string[], env?: NodeJS.ProcessEnv) =>
    execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: env && { ...process.env, ...env },
    }).trim();
  const index = join(tmpdir(), `test-map-index-${process.pid}`);
  try {
    // A copy of the real index: its file stats spare hashing every unchanged file again.
    copyFileSync(resolve(root, run(['rev-parse', '--git-path', 'index'])), index);
    run(['add', '--all'], { GIT_INDEX_FILE: index });
    const tree = run(['write-tree'], { GIT_INDEX_FILE: index });
    if (tree === run(['rev-parse', 'HEAD^{tree}'])) return run(['rev-parse', 'HEAD']);
    // Signed by the tool (a clone may have no identity set): the commit is this worktree's alone, never pushed.
    const who = { GIT_AUTHOR_NAME: 'test:changed', GIT_AUTHOR_EMAIL: 'test-changed@localhost' };
    const commit = run(['commit-tree', tree, '-p', 'HEAD', '-m', 'test:changed: the working tree its map was recorded at'], {
      ...who,
      GIT_COMMITTER_NAME: who.GIT_AUTHOR_NAME,
      GIT_COMMITTER_EMAIL: who.GIT_AUTHOR_EMAIL,
    });
    run(['update-ref', 'refs/worktree/test-map', commit]);
    return commit;
  } finally {
    rmSync(index, { force: true });
  }
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

/** Whether `path` in the working tree is the same program as at `commit` (its comments and layout aside); false when it is new or gone. */
export function sameAs(commit: string, path: string): boolean {
  const file = join(repoRoot, path);
  if (!existsSync(file)) return false;
  let before: string;
  try {
    before = execFileSync('git', ['show', `${commit}:${path}`], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 1 << 26,
    });
  } catch {
    return false;
  }
  return sameCode(before, readFileSync(file, 'utf8'), path);
}
