/**
 * npm run repair [-- --dry-run]: puts right what a stream record lost to the failure destination can
 * leave behind (see lib/checker/repair.ts): re-drives every deletion job's cascade and sets every
 * derived counter to what the table says. Run it when the stream processor has caught up (iterator
 * age near zero) and writes are quiet, then `npm run check:table`. Local database unless TABLE_NAME
 * names a deployed table.
 */
import { cliArguments, exitPlainlyOnError } from '#lib/cli';
import { isLocalDatabase } from '#local/database';
import { useLocalStack } from '#local/stackDiscovery';

const { values } = await cliArguments({
  usage: 'usage: npm run repair [-- --dry-run]   (re-drives every deletion cascade, sets every derived counter to a recount)',
  options: { 'dry-run': 'boolean' },
});
exitPlainlyOnError();
if (isLocalDatabase()) await useLocalStack();
const dryRun = values['dry-run'] === true;
const { repairTable } = await import('#checker/repair');
const report = await repairTable({ dryRun });
for (const line of report.countersFixed) console.log(`${dryRun ? 'WOULD FIX' : 'FIXED'} ${line}`);
console.log(
  `${report.jobsRedriven} deletion job(s) ${dryRun ? 'would be' : ''} re-driven, ${report.countersFixed.length} counter(s) ${dryRun ? 'to fix' : 'fixed'}`,
);
