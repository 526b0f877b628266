/**
 * npm run rekey [-- --dry-run]: brings the keys built from user text (project name index, label
 * title guards) up to the current folding, for tables written before it changed. Prints what it
 * changed and any label whose folded title another label already holds (rename one of them).
 * Local database unless TABLE_NAME names a deployed table.
 */
import { cliArguments, exitPlainlyOnError } from '#lib/cli';
import { isLocalDatabase } from '#local/database';
import { useLocalStack } from '#local/stackDiscovery';

const { values } = await cliArguments({
  usage: 'usage: npm run rekey [-- --dry-run]   (brings keys built from user text up to the current folding)',
  options: { 'dry-run': 'boolean' },
});
exitPlainlyOnError();
if (isLocalDatabase()) await useLocalStack();
const { rekeyTable } = await import('#checker/rekey');
const dryRun = values['dry-run'] === true;
const { projects, labels, conflicts } = await rekeyTable({ dryRun });
console.log(`${dryRun ? 'would rekey' : 'rekeyed'} ${projects} projects and ${labels} labels`);
for (const c of conflicts) console.log(`CONFLICT ${c}`);
process.exit(conflicts.length ? 1 : 0);
