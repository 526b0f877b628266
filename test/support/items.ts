import { FRESH_STATS, storedProjectItem } from '#domain/projects';
import type { ProjectRecord } from '#domain/entities';

/** A project record as the service stores it, for tests that hand DynamoDB items to mocks or decoders. */
export function sampleProject(overrides: Partial<ProjectRecord> = {}): ProjectRecord {
  return {
    id: 'p-1',
    workspace: 'acme-corp',
    slug: 'website-redesign',
    name: 'Website Redesign',
    description: '',
    visibility: 'public',
    recurring: false,
    owner: { name: 'Seed', username: 'seed' },
    status: 'in_progress',
    settings: { default_workflow: 'kanban', task_prefix: 'WR' },
    ...FRESH_STATS,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** The stored item of `sampleProject(overrides)`: keys, index keys and attributes. */
export function sampleProjectItem(overrides: Partial<ProjectRecord> = {}) {
  return storedProjectItem(sampleProject(overrides));
}
