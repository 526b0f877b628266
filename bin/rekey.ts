/**
 * npm run rekey [-- --dry-run]: brings keys up to the current design, for tables written before it
 * changed: the keys built from user text (project name index, label title guards) to the current
 * folding, stream receipts and the webhooks room's items (webhooks, send slots, their count) to partitions
 * of their own, tasks and their states to their project's shards, label and project copies up to their items; and seals webhook secrets kept in clear (a
 * deployed table: with WEBHOOK_SECRETS_KMS_KEY_ID, the stack's key). Prints what it changed and any
 * label whose folded title another label already holds (rename one of them).
 * Local database unless TABLE_NAME names a deployed table.
 */
import { cliArguments, exitPlainlyOnError } from '#lib/cli';
import { isLocalDatabase } from '#local/database';
import { useLocalStack } from '#local/stackDiscovery';

const { values } = await cliArguments({
  usage:
    "usage: npm run rekey [-- --dry-run]   (brings keys up to the current design: text keys to the current folding, stream receipts, the webhooks room's items and tasks, title guards and label counts to their own partitions, webhook secrets sealed)",
  options: { 'dry-run': 'boolean' },
});
exitPlainlyOnError();
if (isLocalDatabase()) await useLocalStack();
const { rekeyTable } = await import('#checker/rekey');
const dryRun = values['dry-run'] === true;
const r = await rekeyTable({ dryRun });
const { projects, labels, receipts, webhooks, secrets, tasks, states, waitUntil, copies, copyAfter, conflicts } = r;
const copying = (after: string | undefined) => (after ? 'will copy' : dryRun ? 'would copy' : 'copied');
const move = dryRun ? 'would move' : 'moved';
console.log(
  `${dryRun ? 'would rekey' : 'rekeyed'} ${projects} projects, ${labels} labels and ${receipts} stream receipts; ${move} ${webhooks} webhooks to the webhooks room's partitions; ${dryRun ? 'would seal' : 'sealed'} the secrets of ${secrets} webhooks; ${waitUntil ? 'will move' : move} ${tasks} tasks and ${states} task, member and sprint states to their shards; ${copying(copyAfter)} ${copies} labels to their copies; ${copying(r.projectCopyAfter)} ${r.projectCopies} projects to theirs; ${r.titleGuardAfter ? 'will move' : move} ${r.titleGuards} title guards; ${r.labelTallyAfter ? 'will move' : move} the label counts of ${r.labelTallies} workspaces`,
);
if (waitUntil)
  console.log(`Tasks move to their shards after ${waitUntil} (a function of the version before may run until then): run this again then.`);
if (copyAfter)
  console.log(`Labels are copied after ${copyAfter} (a function of the version before may run until then): run this again then.`);
if (r.projectCopyAfter)
  console.log(
    `Projects are copied after ${r.projectCopyAfter} (a function of the version before may run, or count on a project, until then): run this again then.`,
  );
if (r.titleGuardAfter)
  console.log(`Title guards move after ${r.titleGuardAfter} (a function may go by where they were until then): run this again then.`);
if (r.labelTallyAfter)
  console.log(`Label counts move after ${r.labelTallyAfter} (a function of the version before may run until then): run this again then.`);
for (const c of conflicts) console.log(`CONFLICT ${c}`);
process.exit(conflicts.length ? 1 : 0);
