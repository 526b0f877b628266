/**
 * npm run events: writes events/<function>.json, one sample event per route of the route table plus
 * events/authorizer.json, from lib/local/samples.ts through the local gateway's proxyEvent(). Commit
 * the result; the events tests fail when the files and this generator disagree.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliArguments } from '#lib/cli';
import { repoRoot } from '#lib/paths';

await cliArguments({
  usage: 'usage: npm run events   (writes events/<function>.json, the sample event of every function, from lib/local/samples.ts)',
});
// Loaded first: it turns off the AWS SDK's Node 20 notice (the samples use the service's item builders).
await import('#local/database');
const { sampleEvents } = await import('#local/samples');

const dir = join(repoRoot, 'events');
mkdirSync(dir, { recursive: true });
const events = sampleEvents();
for (const file of readdirSync(dir)) {
  if (file.endsWith('.json') && !(file.slice(0, -'.json'.length) in events)) rmSync(join(dir, file));
}
for (const [name, event] of Object.entries(events)) {
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(event, null, 2)}\n`);
}
console.log(`Wrote ${Object.keys(events).length} events to ${dir}`);
