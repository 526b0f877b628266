import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * What `npm run deploy` and `npm run bootstrap` check before CDK synthesizes (bin/preflight.ts): that
 * AWS credentials and a Region can be found, as the SDK and the CDK CLI look for them (the environment,
 * the profile of AWS_PROFILE or --profile in ~/.aws, SSO, a process, a role of the machine), without
 * asking AWS whether they are valid. Only the machine's own role needs the network (its metadata
 * service): the whole check is bounded, so it never hangs where there is none.
 */
export interface DeployAccess {
  /** What is missing: the credentials, the Region, or both (empty when both were found). */
  missing: ('credentials' | 'region')[];
  /** Why the credentials could not be used, when the SDK says more than "none found" (an expired SSO session, say). */
  reason?: string;
  /** The profile looked in (--profile or AWS_PROFILE), when one was named. */
  profile?: string;
}

/** Longer than the metadata service's own timeouts (1 s a request), far shorter than a synth. */
const BOUND_MS = 5_000;

/** Whether credentials and a Region are there for `profile` (or AWS_PROFILE, or the default profile). */
export async function checkDeployAccess(profile: string | undefined): Promise<DeployAccess> {
  const env = process.env;
  // Silent: the SDK's warning that a profile and keys are both set is no news when --profile names one.
  const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
  const client = new DynamoDBClient({ logger: quiet, ...(profile ? { profile } : {}) });
  const within = <T>(what: Promise<T>) =>
    Promise.race([
      what,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`none found within ${BOUND_MS / 1000} s`)), BOUND_MS).unref()),
    ]);
  const [credentials, region] = await Promise.allSettled([
    within(client.config.credentials()),
    // CDK also takes AWS_DEFAULT_REGION, which the SDK for JavaScript does not read.
    env.AWS_DEFAULT_REGION ? Promise.resolve(env.AWS_DEFAULT_REGION) : within(client.config.region()),
  ]);
  client.destroy();
  const missing: DeployAccess['missing'] = [];
  if (credentials.status === 'rejected') missing.push('credentials');
  if (region.status === 'rejected' || !region.value) missing.push('region');
  const said =
    credentials.status === 'rejected' ? (String((credentials.reason as Error)?.message ?? credentials.reason).split('\n')[0] ?? '') : '';
  const named = profile ?? env.AWS_PROFILE;
  const reason = /from any providers/.test(said) ? '' : said;
  return { missing, ...(reason ? { reason } : {}), ...(named ? { profile: named } : {}) };
}

/** The one line that says what is missing and how to set it. */
export function deployAccessHint(command: string, { missing, reason, profile }: DeployAccess): string {
  const credentials = 'run `aws configure` (or `aws sso login`), or set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';
  const region = 'set AWS_REGION (e.g. AWS_REGION=eu-west-1) or a region in your profile';
  const both = missing.length > 1;
  const what = both ? 'AWS credentials and a Region' : missing[0] === 'credentials' ? 'AWS credentials' : 'an AWS Region';
  const found = `finds ${both ? 'neither' : 'none'}${profile ? ` for profile ${profile}` : ''}${reason ? ` (${reason})` : ''}`;
  const how = both ? `${credentials}, and ${region}` : missing[0] === 'credentials' ? credentials : region;
  return `${command} needs ${what} and ${found}: ${how}. Nothing was synthesized or deployed.`;
}
