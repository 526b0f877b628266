import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { ItemType, keys } from '#store/keys';
import { tableName } from '#store/table';
import { inboundStats, scanTable, usesOfLinks } from './invariants.ts';
import { keptStatsItem, keptStatsOf, projectsWithKeptStats, staleStatsViolations } from './stats.ts';
import { liveLinks } from './taskShards.ts';

/**
 * What a stream record lost to the failure destination can leave behind, put right (an offline
 * tool, like the checker; run it when the stream processor has caught up, with writes quiet):
 *   - every deletion job gets its round bumped, so its stream record runs the cascade on;
 *   - every use counter, labels_count and the four inbound counters are set to what the links and the
 *     task, member and sprint states say (through the project's kept stats: its item's base stays);
 *   - kept stats of no live project are removed, and so are task, member and sprint states of a project gone whose
 *     cascade has finished (one written just after the delete, its stream record lost).
 */
export interface RepairReport {
  jobsRedriven: number;
  countersFixed: string[];
}

export async function repairTable(opts: { dryRun: boolean }): Promise<RepairReport> {
  const items = await scanTable();
  const of = (type: string) => items.filter((i) => i.type === type);
  const report: RepairReport = { jobsRedriven: 0, countersFixed: [] };
  const send = async (write: () => Promise<unknown>) => {
    if (!opts.dryRun) await write();
  };

  for (const job of [...of(ItemType.projectDeletion), ...of(ItemType.labelDeletion)]) {
    report.jobsRedriven++;
    await send(() =>
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: { PK: job.PK, SK: job.SK },
          UpdateExpression: 'SET round = round + :one',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':one': 1 },
        }),
      ),
    ).catch((error: Error) => {
      if (error.name !== 'ConditionalCheckFailedException') throw error;
    });
  }

  const projects = projectsWithKeptStats(items);
  const bases = new Map(of(ItemType.project).map((p) => [p.id as string, p]));
  const projectIds = new Set(projects.map((p) => p.id as string));
  // Links of a deleted project go with its cascade, counters and all: only live projects' count.
  const links = usesOfLinks(liveLinks(items).filter((l) => projectIds.has(l.project_id)));
  const stored = new Map(of(ItemType.labelUse).map((u) => [`${u.project_id}#${u.label_id}`, u]));
  for (const [id, use] of links) {
    if (stored.get(id)?.n === use.n) continue;
    report.countersFixed.push(`use counter ${id}: ${stored.get(id)?.n ?? 'none'} -> ${use.n}`);
    await send(() =>
      db.send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.labelUse(use.projectId, use.labelId),
            type: ItemType.labelUse,
            workspace: use.ws,
            project_id: use.projectId,
            label_id: use.labelId,
            n: use.n,
          },
        }),
      ),
    );
  }
  for (const [id, u] of stored) {
    if (links.has(id) || !projectIds.has(u.project_id)) continue;
    report.countersFixed.push(`use counter ${id}: ${u.n} -> none`);
    await send(() => db.send(new DeleteCommand({ TableName: tableName(), Key: { PK: u.PK, SK: u.SK } })));
  }

  // Kept stats of no live project go first (a live project's repaired ones may take their key), each only as read.
  for (const stale of staleStatsViolations(items)) report.countersFixed.push(stale);
  const kept = new Set([...keptStatsOf(items).values()]);
  for (const k of of(ItemType.projectStats).filter((i) => !kept.has(i)))
    await send(() =>
      db
        .send(
          new DeleteCommand({
            TableName: tableName(),
            Key: { PK: k.PK, SK: k.SK },
            ConditionExpression: 'project_id = :stale',
            ExpressionAttributeValues: { ':stale': k.project_id },
          }),
        )
        .catch((error: Error) => {
          if (error.name !== 'ConditionalCheckFailedException') throw error;
        }),
    );

  // Task, member and sprint states of a project gone with no cascade left to take them (a state written just after
  // its project's delete, whose stream record was lost: the stream removes the others).
  const deleting = new Set(of(ItemType.projectDeletion).map((j) => j.project_id as string));
  for (const s of of(ItemType.thingState).filter((t) => !projectIds.has(t.project_id) && !deleting.has(t.project_id))) {
    report.countersFixed.push(`${s.thing} state ${s.PK} / ${s.SK} of a missing project: removed`);
    await send(() => db.send(new DeleteCommand({ TableName: tableName(), Key: { PK: s.PK, SK: s.SK } })));
  }

  const states = of(ItemType.thingState);
  for (const p of projects) {
    const truth: Record<string, number> = {
      labels_count: [...links.values()].filter((u) => u.projectId === p.id).length,
      ...inboundStats(
        p,
        states.filter((t) => t.project_id === p.id),
      ),
    };
    const wrong = Object.entries(truth).filter(([name, value]) => p[name] !== value);
    if (!wrong.length) continue;
    report.countersFixed.push(`project ${p.workspace}/${p.slug}: ${wrong.map(([n, v]) => `${n} ${p[n]} -> ${v}`).join(', ')}`);
    // Its base stays; what the stream keeps for it (store/projectStats.ts) makes up the difference.
    await send(() => db.send(new PutCommand({ TableName: tableName(), Item: keptStatsItem(p, bases.get(p.id)!, truth) })));
  }
  return report;
}
