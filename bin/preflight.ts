/**
 * node --import tsx bin/preflight.ts <command> [arguments]: what `npm run deploy` and `npm run bootstrap`
 * run first (package.json). In about a second it checks that AWS credentials and a Region can be
 * found (lib/aws/deployAccess.ts); when they cannot, it says in one line how to set them and exits 1,
 * before CDK synthesizes (about 30 s); when they can, it runs the command with its arguments, those npm
 * adds after `--` included, and ends as it ends. With --help among them it checks nothing: the command
 * (cdk) shows its own help after this usage. Its `--profile <name>` is the profile checked.
 */
// First: keeps the AWS SDK's Node 20 notice out of the output.
import '#lib/sdkNotice';
import { spawn } from 'node:child_process';
import { checkDeployAccess, deployAccessHint } from '#lib/aws/deployAccess';

const usage = `usage: npm run deploy -- [cdk deploy options]   (e.g. -c stage=prod, --profile <name>; npx cdk deploy --help lists them)
       npm run bootstrap                        (once per account and Region)
  Both run bin/preflight.ts first: in about a second it checks that AWS credentials (aws configure,
  AWS_PROFILE or --profile, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, SSO, the machine's role) and a
  Region (AWS_REGION, AWS_DEFAULT_REGION or the profile's) are there, then runs cdk: its synth takes
  about 30 s before anything is deployed.`;

const [command, ...args] = process.argv.slice(2);
const asksHelp = args.includes('--help') || args.includes('-h');
if (command === undefined || command === '--help' || command === '-h' || asksHelp) {
  console.log(usage);
  if (!asksHelp) process.exit(0);
} else {
  const at = args.findIndex((a) => a === '--profile' || a.startsWith('--profile='));
  const profile = at < 0 ? undefined : args[at]!.includes('=') ? args[at]!.slice('--profile='.length) : args[at + 1];
  const access = await checkDeployAccess(profile);
  if (access.missing.length) {
    console.error(deployAccessHint(`npm run ${process.env.npm_lifecycle_event ?? 'deploy'}`, access));
    process.exit(1);
  }
}

// The command in this terminal, as npm would have run it: its output, its exit status.
const child = spawn(command!, args, { stdio: 'inherit', shell: process.platform === 'win32' });
// Ctrl-C reaches it from the terminal; a signal sent to this process alone is passed on.
for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
process.on('SIGINT', () => undefined);
child.on('error', (error) => {
  console.error(`Could not run ${command}: ${error.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
