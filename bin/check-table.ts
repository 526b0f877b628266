/**
 * npm run check:table: reads the whole table and reports every violation of the data model.
 * Exit status 1 on any violation. Local database unless TABLE_NAME names a deployed table.
 */
import { cliArguments, exitPlainlyOnError } from '#lib/cli';
import { isLocalDatabase } from '#local/database';
import { useLocalStack } from '#local/stackDiscovery';

await cliArguments({
  usage: 'usage: npm run check:table   (reads the whole table and reports every violation of the data model; exit 1 on any)',
});
exitPlainlyOnError();
if (isLocalDatabase()) await useLocalStack();
const { checkTable } = await import('#checker/invariants');
const { items, violations } = await checkTable();
for (const violation of violations) console.log(`VIOLATION ${violation}`);
console.log(`${items} items checked, ${violations.length} violations`);
process.exit(violations.length ? 1 : 0);
