import { describe, expect, test } from 'vitest';
import { freeSuffix, slugFamilyPrefix, slugify, slugWithSuffix } from '#domain/slugs';
import { foldKey } from '#domain/text';
import { taskPrefixFor } from '#domain/projects';
import { copyNameCandidate } from '#domain/projects';

describe('slugify', () => {
  test.each([
    ['Website Redesign', 'website-redesign'],
    ['  --Hello,   World!!  ', 'hello-world'],
    ['Café Crème', 'cafe-creme'],
    ['Straße Øresund Łódź', 'strasse-oresund-lodz'],
    ['C++ & C#', 'c-c'],
    ['2026 Q1 plan', '2026-q1-plan'],
  ])('%j -> %j', (name, slug) => {
    expect(slugify(name, 'project')).toBe(slug);
  });

  test('falls back when nothing ASCII is left', () => {
    expect(slugify('🚀🔥', 'project')).toBe('project');
    expect(slugify('東京', 'label')).toBe('label');
  });

  test('cuts to 64 characters without a trailing hyphen', () => {
    const slug = slugify(`${'a'.repeat(63)} b`, 'x');
    expect(slug).toBe('a'.repeat(63));
    expect(slugify('x'.repeat(300), 'p')).toHaveLength(64);
  });
});

describe('slug suffixes', () => {
  test('appends -N and keeps 64 characters', () => {
    expect(slugWithSuffix('roadmap', 1)).toBe('roadmap');
    expect(slugWithSuffix('roadmap', 2)).toBe('roadmap-2');
    const long = slugWithSuffix('a'.repeat(64), 12);
    expect(long).toBe(`${'a'.repeat(61)}-12`);
  });

  test('every suffixed slug of a long base starts with the family prefix the taken slugs are read by', () => {
    for (const base of ['a'.repeat(64), `${'a'.repeat(58)}-bcdef`, `${'ab-'.repeat(21)}x`, 'web']) {
      for (const n of [1, 2, 9, 10, 99, 100, 12345])
        expect(slugWithSuffix(base, n).startsWith(slugFamilyPrefix(base)), `${base} ${n}`).toBe(true);
    }
  });

  test('picks the smallest free suffix without contention', () => {
    expect(freeSuffix('web', [])).toBe(1);
    expect(freeSuffix('web', ['web'])).toBe(2);
    expect(freeSuffix('web', ['web', 'web-2', 'web-4', 'website'])).toBe(3);
  });

  test('spreads over the first free suffixes under contention', () => {
    expect(freeSuffix('web', ['web'], 2, () => 0)).toBe(2);
    expect(freeSuffix('web', ['web', 'web-3'], 2, () => 0.99)).toBe(6);
  });
});

describe('names', () => {
  test('normalizes case and surrounding space', () => {
    expect(foldKey('  Bug ')).toBe('bug');
    expect(foldKey('ÉLAN')).toBe('élan');
  });

  test('derives a task prefix from the name', () => {
    expect(taskPrefixFor('Website Redesign')).toBe('WR');
    expect(taskPrefixFor('Marketing')).toBe('MAR');
    expect(taskPrefixFor('a b c d e f')).toBe('ABCD');
    expect(taskPrefixFor('🚀')).toBe('PRJ');
  });

  test('names copies within 255 characters', () => {
    expect(copyNameCandidate('Plan', 1)).toBe('Plan (copy)');
    expect(copyNameCandidate('Plan', 3)).toBe('Plan (copy 3)');
    expect(copyNameCandidate('x'.repeat(255), 2)).toHaveLength(255);
  });
});
