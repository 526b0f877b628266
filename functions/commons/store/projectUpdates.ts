import type { Actor, ProjectPatch, ProjectRecord } from '#domain/entities';
import { allCopied, copyPuts, copyUpdates } from './copies';
import { COPIED } from './copyLayouts';
import { TransactionCancelled } from './errors';
import { keys } from './keys';
import { projectItem, sameRevision, type NameKey } from './projectItem';
import { readProject } from './projects';
import { AGAIN, RETRY, withRetries } from './retry';
import { transact, tx } from './transactions';

/** A project's partial updates (its other reads and writes: projects.ts). */

/** What an update found: the project after it, and whether it changed (false: it had those values already). */
export interface ProjectUpdate {
  project: ProjectRecord;
  changed: boolean;
}

const BUSY = 'The project is being changed by other requests; retry shortly.';

/** An update expression's parts: its SET clauses, names and values. */
interface Sets {
  sets: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/**
 * A patch as update expressions: what the item and its copies alike get (`fields`: the fields it names, when, by whom,
 * the revision counted), what the item alone gets (`indexed`: its index keys; a copy is in no index), and `differs`,
 * the condition that one of the fields differs.
 */
function changeOf(ws: string, patch: ProjectPatch, nameKey: NameKey, actor: Actor, now: string) {
  const fields: Sets = {
    sets: ['updated_at = :now', 'updated_by = :by', '#rev = if_not_exists(#rev, :zero) + :one'],
    names: { '#rev': 'rev' },
    values: { ':now': now, ':by': actor, ':zero': 0, ':one': 1 },
  };
  const indexed: Sets = { sets: [], names: {}, values: {} };
  const differs: string[] = [];
  const set = (to: Sets, path: string, value: unknown) => {
    const id = path.replace(/\W/g, '_');
    const ref = path
      .split('.')
      .map((part) => {
        to.names[`#${part}`] = part;
        return `#${part}`;
      })
      .join('.');
    to.values[`:${id}`] = value;
    to.sets.push(`${ref} = :${id}`);
    if (to === fields) differs.push(`${ref} <> :${id}`, `attribute_not_exists(${ref})`);
  };
  if (patch.name !== undefined) {
    set(fields, 'name', patch.name);
    set(indexed, 'GSI2SK', nameKey(patch.name));
  }
  if (patch.description !== undefined) set(fields, 'description', patch.description);
  if (patch.visibility !== undefined) set(fields, 'visibility', patch.visibility);
  if (patch.status !== undefined) {
    set(fields, 'status', patch.status);
    set(indexed, 'GSI1PK', keys.projectStatusPartition(ws, patch.status));
  }
  if (patch.settings?.default_workflow !== undefined) set(fields, 'settings.default_workflow', patch.settings.default_workflow);
  if (patch.settings?.task_prefix !== undefined) set(fields, 'settings.task_prefix', patch.settings.task_prefix);
  return { fields, indexed, differs };
}

/**
 * Applies a partial update, writing only the fields it names and only when one of them differs,
 * and counts it in the item's revision. An update that changes nothing writes nothing and answers
 * the project as it is. Undefined when there is no such project (or, given `asRead`, when it is no
 * longer that revision).
 *
 * Once every project has its copies (copies.ts), the same update goes to the item and each copy in one transaction,
 * with no read before it (concurrent updates of one project never lose a round to each other, each round costing its
 * write units), and the answer is the project as a copy reads after. Otherwise (or a copy missing) the item is read,
 * and updated conditional on the revision read with its copies put as the project then is.
 */
export async function updateProjectItem(
  ws: string,
  slug: string,
  patch: ProjectPatch,
  nameKey: NameKey,
  actor: Actor,
  asRead?: ProjectRecord,
): Promise<ProjectUpdate | undefined> {
  const change = changeOf(ws, patch, nameKey, actor, new Date().toISOString());
  if (change.differs.length === 0) {
    const project = await readProject(ws, slug);
    return project && (!asRead || project.rev === asRead.rev) ? { project, changed: false } : undefined;
  }
  if (await allCopied(COPIED.project)) {
    const inPlace = await updateInPlace(ws, slug, patch, change, asRead);
    if (inPlace !== COPY_MISSING) return inPlace;
  }
  return updateByRead(ws, slug, patch, change, nameKey, asRead);
}

type Change = ReturnType<typeof changeOf>;

/** A copy was not where it should be (the copies' invariant broken): the update goes by a read, which puts them all. */
const COPY_MISSING = Symbol('copy missing');

/** Whether `project` is the one read, at its revision (or there was none read). */
const asWasRead = (project: ProjectRecord, asRead: ProjectRecord | undefined) =>
  !asRead || (project.id === asRead.id && project.rev === asRead.rev);

async function updateInPlace(
  ws: string,
  slug: string,
  patch: ProjectPatch,
  { fields, indexed, differs }: Change,
  asRead: ProjectRecord | undefined,
): Promise<ProjectUpdate | undefined | typeof COPY_MISSING> {
  const names = { ...fields.names, ...indexed.names };
  const values = { ...fields.values, ...indexed.values };
  const conditions = ['attribute_exists(PK)', `(${differs.join(' OR ')})`];
  if (asRead) conditions.push(sameRevision(asRead, names, values));
  return withRetries(RETRY.conflicts, BUSY, async () => {
    try {
      await transact([
        [
          'project',
          tx.update(keys.project(ws, slug), `SET ${[...fields.sets, ...indexed.sets].join(', ')}`, {
            condition: conditions.join(' AND '),
            names,
            values,
          }),
        ],
        ...copyUpdates(COPIED.project, ws, slug, `SET ${fields.sets.join(', ')}`, fields),
      ]);
    } catch (error) {
      if (!(error instanceof TransactionCancelled)) throw error;
      if (error.conditionFailed('project')) {
        // Not there, not the revision read, or already as asked: as its item says (a copy it could not have found).
        const project = await readProject(ws, slug, true);
        if (!project || !asWasRead(project, asRead)) return undefined;
        return unchangedBy(project, patch) ? { project, changed: false } : AGAIN;
      }
      if (error.anyConditionFailed) return COPY_MISSING;
      if (error.conflicted) return AGAIN;
      throw error;
    }
    const project = await readProject(ws, slug);
    return project ? { project, changed: true } : undefined;
  });
}

async function updateByRead(
  ws: string,
  slug: string,
  patch: ProjectPatch,
  { fields, indexed }: Change,
  nameKey: NameKey,
  asRead: ProjectRecord | undefined,
): Promise<ProjectUpdate | undefined> {
  return withRetries(RETRY.conflicts, BUSY, async () => {
    // From its item, always: its copies may be behind it (not yet copied), and `asRead` has its stats whole.
    const current = await readProject(ws, slug, true);
    if (!current || !asWasRead(current, asRead)) return undefined;
    if (unchangedBy(current, patch)) return { project: current, changed: false };
    const next = patched(current, patch, fields.values);
    const names = { ...fields.names, ...indexed.names };
    const values = { ...fields.values, ...indexed.values };
    const update = tx.update(keys.project(ws, slug), `SET ${[...fields.sets, ...indexed.sets].join(', ')}`, {
      condition: sameRevision(current, names, values),
      names,
      values,
    });
    try {
      await transact([['project', update], ...(await copyPuts(projectItem(next, nameKey)))]);
      return { project: next, changed: true };
    } catch (error) {
      if (!(error instanceof TransactionCancelled) || (!error.conditionFailed('project') && !error.conflicted)) throw error;
      return AGAIN;
    }
  });
}

/** The project as the update's expression leaves it. */
function patched(p: ProjectRecord, patch: ProjectPatch, values: Record<string, unknown>): ProjectRecord {
  const settings = { ...p.settings };
  if (patch.settings?.default_workflow !== undefined) settings.default_workflow = patch.settings.default_workflow;
  if (patch.settings?.task_prefix !== undefined) settings.task_prefix = patch.settings.task_prefix;
  return {
    ...p,
    ...(patch.name === undefined ? {} : { name: patch.name }),
    ...(patch.description === undefined ? {} : { description: patch.description }),
    ...(patch.visibility === undefined ? {} : { visibility: patch.visibility }),
    ...(patch.status === undefined ? {} : { status: patch.status }),
    settings,
    updated_at: values[':now'] as string,
    updated_by: values[':by'] as Actor,
    rev: (p.rev ?? 0) + 1,
  };
}

/** Whether every field `patch` names already has its value in `project`. */
function unchangedBy(project: ProjectRecord, patch: ProjectPatch): boolean {
  return (
    (patch.name === undefined || patch.name === project.name) &&
    (patch.description === undefined || patch.description === project.description) &&
    (patch.visibility === undefined || patch.visibility === project.visibility) &&
    (patch.status === undefined || patch.status === project.status) &&
    (patch.settings?.default_workflow === undefined || patch.settings.default_workflow === project.settings.default_workflow) &&
    (patch.settings?.task_prefix === undefined || patch.settings.task_prefix === project.settings.task_prefix)
  );
}
