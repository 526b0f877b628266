import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';

export type StageName = 'dev' | 'prod';

/** What differs between a throwaway development stack and production. */
export interface StageConfig {
  name: StageName;
  /** Prefix of every physical name, so both stages can live in one account. */
  prefix: string;
  logRetention: RetentionDays;
  /**
   * What a destroy (or a replacement) does to what holds data: the table, the log groups, the cursor key.
   * dev is disposable; prod keeps them (and its table refuses deletion), except when the create that made
   * them rolls back (CloudFormation's RetainExceptOnCreate): a failed first deploy leaves no log group or
   * secret behind that would make the next one fail with "already exists" (the table's deletion
   * protection refuses even that delete: docs/deploy.md says how to finish such a rollback; whether a
   * room's log groups count as rolled back with the root is CloudFormation's call, not tried: deploy.md too).
   */
  removalPolicy: RemovalPolicy;
  deletionProtection: boolean;
  throttle: { rateLimit: number; burstLimit: number };
  authorizerCacheTtl: Duration;
  /** The functions' log level (Powertools), and the share of invocations logged at DEBUG whatever it is. */
  logLevel: 'DEBUG' | 'INFO';
  logSampleRate: number;
  /** Whether the API has a web ACL with a per-address rate rule (web-acl.ts); `-c webAcl=` overrides it. */
  webAcl: boolean;
  /**
   * The units a second one partition of a workspace may draw before its requests are refused (429): the route
   * functions' WORKSPACE_RATE_LIMITS (functions/commons/domain/workspaceRateLimits.ts).
   */
  workspaceRateLimits: { read: number; write: number };
}

/**
 * Nine tenths of what one partition serves (3,000 read and 1,000 write units a second): a workspace is slowed
 * down with room left for what is not a request (the stream's work, inbound events, deliveries), before DynamoDB
 * throttles the key.
 */
const WORKSPACE_RATE_LIMITS = { read: 2_700, write: 900 };

export const STAGES: Record<StageName, StageConfig> = {
  dev: {
    name: 'dev',
    prefix: 'project-label-service-dev',
    logRetention: RetentionDays.ONE_WEEK,
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
    throttle: { rateLimit: 20, burstLimit: 40 },
    authorizerCacheTtl: Duration.minutes(5),
    logLevel: 'DEBUG',
    logSampleRate: 0,
    webAcl: false,
    workspaceRateLimits: WORKSPACE_RATE_LIMITS,
  },
  prod: {
    name: 'prod',
    prefix: 'project-label-service-prod',
    logRetention: RetentionDays.THREE_MONTHS,
    removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    deletionProtection: true,
    // At or above the rate at which one workspace's busiest key saturates in the mix (docs/capacity.md, 10,000
    // req/s): the stage's throttle, which API Gateway applies to every caller together, is never the first
    // limit a workspace meets. Fairness between callers is the per-token usage plans' (100/s by default).
    // The burst is the account's default (5,000): a stage's burst above it is the account's anyway.
    throttle: { rateLimit: 10_000, burstLimit: 5_000 },
    authorizerCacheTtl: Duration.minutes(5),
    logLevel: 'INFO',
    logSampleRate: 0.01,
    webAcl: true,
    workspaceRateLimits: WORKSPACE_RATE_LIMITS,
  },
};

export function stageConfig(name: unknown = 'dev'): StageConfig {
  if (name !== 'dev' && name !== 'prod') throw new Error(`Unknown stage "${String(name)}": use -c stage=dev or -c stage=prod.`);
  return STAGES[name];
}

/** The most a stage's throttle may be set to here: far above any account's API Gateway quota a deployment asks for. */
const MAX_STAGE_RATE = 1_000_000;

/**
 * The stage with its throttle as `-c stageRate=` and `-c stageBurst=` set it (requests a second, whole numbers): a
 * deployment whose account quotas were raised (docs/deploy.md) raises the stage's with them. A rate alone takes a
 * burst of twice it (at most the maximum), as the stages' own do; neither given, the stage's. Not kept between deploys:
 * a deploy without them sets the stage's own again (cdk.json's context keeps them for every deploy).
 */
export function withThrottle(stage: StageConfig, rate: unknown, burst: unknown): StageConfig {
  if (rate === undefined && burst === undefined) return stage;
  const rateLimit = rate === undefined ? stage.throttle.rateLimit : requests('stageRate', rate);
  const twice = Math.min(2 * rateLimit, MAX_STAGE_RATE);
  const burstLimit = burst === undefined ? (rate === undefined ? stage.throttle.burstLimit : twice) : requests('stageBurst', burst);
  return { ...stage, throttle: { rateLimit, burstLimit } };
}

function requests(flag: string, value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_STAGE_RATE)
    throw new Error(
      `-c ${flag}=${JSON.stringify(value)}: use a whole number of requests a second from 1 to ${MAX_STAGE_RATE.toLocaleString('en-US')}.`,
    );
  return n;
}
