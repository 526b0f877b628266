import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { changedBetween, keepSnapshot, snapshotCommit } from '#lib/testmap/changes';
import { faultsIn, planted, sampleFaults, seeded } from '#lib/testmap/faults';
import type { TestMap } from '#lib/testmap/map';
import { sameCode } from '#lib/testmap/comments';
import { merged } from '#lib/testmap/record';
import { selectTests } from '#lib/testmap/select';

/** npm run test:changed's choice (lib/testmap/select.ts) and its check's faults (faults.ts), on maps and sources made here. */
const map: TestMap = {
  commit: 'c0ffee',
  recordedAt: '2026-11-28T00:00:00.000Z',
  files: {
    'test/a.test.ts': { ran: ['functions/labels/create.ts', 'functions/commons/http/endpoint.ts'], read: ['docs/'] },
    'test/b.test.ts': { ran: ['functions/projects/create.ts', 'functions/commons/http/endpoint.ts'], read: ['README.md'] },
    // It bundles the label route (esbuild's input: read) and counts the lines of every source (read).
    'test/c.test.ts': { ran: ['lib/cdk/stack.ts'], read: ['/', 'functions/labels/create.ts', 'functions/commons/http/endpoint.ts'] },
  },
};
const tests = ['test/a.test.ts', 'test/b.test.ts', 'test/c.test.ts', 'test/new.test.ts'];

describe('selectTests', () => {
  test.each([
    [['functions/labels/create.ts'], ['test/a.test.ts', 'test/c.test.ts', 'test/new.test.ts']],
    [['functions/commons/http/endpoint.ts'], ['test/a.test.ts', 'test/b.test.ts', 'test/c.test.ts', 'test/new.test.ts']],
    // A file added to a folder a test listed; a file at the root, listed by another.
    [['docs/added.md'], ['test/a.test.ts', 'test/new.test.ts']],
    [['NEW.md'], ['test/c.test.ts', 'test/new.test.ts']],
    // A changed test file runs itself; a file nothing used chooses none (but the unknown file).
    [['test/b.test.ts'], ['test/b.test.ts', 'test/new.test.ts']],
    [['functions/unused.ts'], ['test/new.test.ts']],
  ])('%j chooses %j', (changed, chosen) => {
    expect(selectTests(changed, map, tests).tests).toEqual(chosen);
  });

  test.each(['package.json', 'package-lock.json', 'vitest.config.ts', 'tsconfig.json', 'test/support/env.ts'])(
    'a change to %s chooses the whole suite, and says why',
    (file) => {
      const selection = selectTests(['functions/labels/create.ts', file], map, tests);
      expect(selection.tests).toEqual(tests);
      expect(selection.whole).toContain(file);
    },
  );

  test('a script changed in its comments alone chooses the files that read it, not those that ran it', () => {
    const commentsOnly = (path: string) => path === 'functions/commons/http/endpoint.ts';
    expect(selectTests(['functions/commons/http/endpoint.ts'], map, tests, commentsOnly).tests).toEqual([
      'test/c.test.ts',
      'test/new.test.ts',
    ]);
    expect(selectTests(['functions/projects/create.ts'], map, tests, commentsOnly).tests).toEqual(['test/b.test.ts', 'test/new.test.ts']);
  });

  test('says, for each file chosen, the change that chose it', () => {
    expect(selectTests(['README.md'], map, tests).because).toEqual({
      'test/b.test.ts': 'README.md',
      'test/c.test.ts': 'README.md', // it listed the root
      'test/new.test.ts': '(not in the map)',
    });
  });
});

describe('sameCode', () => {
  const code = ['/** Doc. */', 'export function f(a: number): number {', '  // why', '  return a + 1; // one more', '}', ''].join('\n');

  test.each([
    ['a comment edited, added, removed', code.replace('why', 'because').replace('// one more', '')],
    ['layout', code.replace('  return a + 1;', '  return   a+1;\n')],
  ])('the same program: %s', (_, after) => expect(sameCode(code, after, 'f.ts')).toBe(true));

  test.each([
    ['a value', code.replace('a + 1', 'a + 2')],
    ['a string that looks like a comment', code.replace('a + 1', "a + '// 1'")],
    ['a file that no longer parses', code.replace('}', '')],
    ['a comment opened and never closed', code.replace('// why', '/* why')],
  ])('a change of code: %s', (_, after) => expect(sameCode(code, after, 'f.ts')).toBe(false));

  test('a change in the text of a template after a substitution, where a scanner alone would see a comment', () => {
    const template = (text: string) => `${code}export const u = \`\${code.length}//${text}\`;\n`;
    expect(sameCode(template('x'), template('y'), 'f.ts')).toBe(false);
    expect(sameCode(template('x'), template('x').replace('// why', '// because'), 'f.ts')).toBe(true);
  });
});

describe('faults', () => {
  const source = ['// a < b in a comment', 'export type T = A | B;', 'if (a === b && c) return true;', 'const x = y >= 1;'].join('\n');

  test('one per line of code, never in a comment or a type: the first mutation that applies', () => {
    expect(faultsIn('f.ts', source)).toEqual([
      { file: 'f.ts', line: 3, before: 'if (a === b && c) return true;', after: 'if (a !== b && c) return true;' },
      { file: 'f.ts', line: 4, before: 'const x = y >= 1;', after: 'const x = y > 1;' },
    ]);
    expect(planted(source, faultsIn('f.ts', source)[1]!).split('\n')[3]).toBe('const x = y > 1;');
  });

  test('the same seed draws the same sample, each fault in a module of its own', () => {
    const first = sampleFaults(5, seeded(7));
    expect(sampleFaults(5, seeded(7))).toEqual(first);
    expect(new Set(first.map((f) => f.file)).size).toBe(5);
    for (const fault of first) expect(fault.file).toMatch(/^(functions|lib|bin)\//);
  });
});

describe('keeping the map current', () => {
  const recorded = {
    'test/a.test.ts': { ran: ['functions/labels/update.ts'], read: [] },
    'test/new.test.ts': { ran: ['lib/x.ts'], read: ['docs/'] },
  };

  test('the files a call ran add what they used, and the map moves to the state they ran on; the others keep theirs', () => {
    const after = merged(map, recorded, { partial: true, commit: 'snap1', moved: true });
    expect(after.commit).toBe('snap1');
    // What a file used at either state: a map that says too much chooses too many, never too few.
    expect(after.files['test/a.test.ts']!.ran).toEqual([
      'functions/commons/http/endpoint.ts',
      'functions/labels/create.ts',
      'functions/labels/update.ts',
    ]);
    expect(after.files['test/new.test.ts']).toEqual(recorded['test/new.test.ts']);
    expect(after.files['test/b.test.ts']).toEqual(map.files['test/b.test.ts']);
  });

  test('a partial recording that does not move keeps the commit; a whole one replaces the map', () => {
    const kept = merged(map, recorded, { partial: true, commit: 'head1', moved: false });
    expect(kept.commit).toBe('c0ffee');
    const whole = merged(map, recorded, { partial: false, commit: 'head2', moved: false });
    expect(whole).toMatchObject({ commit: 'head2', files: recorded });
  });

  test('a snapshot holds the working tree (changed, staged, new files of the source folders; not ignored or stray ones) and leaves its index alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pls-snapshot-'));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
    try {
      git('init', '-q');
      git('config', 'user.email', 'dev@example.com');
      git('config', 'user.name', 'Dev');
      writeFileSync(join(dir, '.gitignore'), 'ignored.txt\n');
      writeFileSync(join(dir, 'a.ts'), 'export const a = 1;\n');
      git('add', '-A');
      git('commit', '-qm', 'first');
      const head = git('rev-parse', 'HEAD');
      expect(snapshotCommit(dir)).toBe(head); // nothing differs
      writeFileSync(join(dir, 'a.ts'), 'export const a = 2;\n');
      mkdirSync(join(dir, 'functions'));
      writeFileSync(join(dir, 'functions', 'new.ts'), 'export const n = 0;\n');
      writeFileSync(join(dir, 'functions', 'é ü.ts'), 'export const u = 0;\n');
      writeFileSync(join(dir, '.env'), 'SECRET=1\n'); // new, but no source folder's: never in a snapshot a ref keeps
      writeFileSync(join(dir, 'scratch.ts'), 'x');
      writeFileSync(join(dir, 'ignored.txt'), 'x');
      const status = git('status', '--porcelain');
      const snap = snapshotCommit(dir);
      expect(git('rev-parse', `${snap}^`)).toBe(head);
      expect(git('show', `${snap}:a.ts`)).toBe('export const a = 2;');
      expect(git('ls-tree', '-r', '--name-only', '-z', snap).split('\0').filter(Boolean).sort()).toEqual(
        ['.gitignore', 'a.ts', 'functions/new.ts', 'functions/é ü.ts'].sort(),
      );
      // A name git would quote is named as it is.
      expect(changedBetween(head, snap, dir)).toEqual(['a.ts', 'functions/new.ts', 'functions/é ü.ts'].sort());
      expect(git('status', '--porcelain')).toBe(status); // nothing staged or committed for the user
      expect(git('rev-parse', 'HEAD')).toBe(head);
      expect(git('for-each-ref')).not.toContain('test-map'); // a snapshot alone keeps no ref
      keepSnapshot(snap, dir);
      expect(git('rev-parse', 'refs/worktree/test-map')).toBe(snap); // the map's, kept from garbage collection
      // An edit of the same size made within the same tick of the clock as the index was written is seen:
      // git trusts an entry's stats only when they are older than its index (a copy dated now would hide
      // it). The tick made exact: the file's and the index's times set equal, the change time not trusted.
      git('config', 'core.trustctime', 'false');
      const tick = new Date('2026-01-01T00:00:00Z');
      utimesSync(join(dir, 'a.ts'), tick, tick); // older than the index about to be written: not smudged
      git('add', '-A');
      writeFileSync(join(dir, 'a.ts'), 'export const a = 3;\n');
      utimesSync(join(dir, 'a.ts'), tick, tick);
      utimesSync(join(dir, '.git', 'index'), tick, tick);
      expect(git('diff', '--name-only')).toBe('a.ts'); // git itself sees it (a diff, which writes no index)
      expect(git('show', `${snapshotCommit(dir)}:a.ts`)).toBe('export const a = 3;');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
