import type { Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import type { StageConfig } from './stage.ts';

/**
 * Requests one client address may send in a minute before the web ACL turns it away: 100 a second on
 * average, a default token's whole rate. API Gateway applies the stage's throttle before it calls the
 * authorizer, so without this an anonymous flood (no token at all) would spend the budget every tenant
 * shares; a client behind one address with several tokens at their default limits still fits.
 */
export const REQUESTS_PER_ADDRESS_PER_MINUTE = 6_000;

/**
 * The stage's web ACL (AWS WAF): one rate-based rule per client IP address. A blocked request gets the
 * API's WAF_FILTERED gateway response (gateway-responses.ts: a 429 problem with Retry-After), so the
 * gateway's own answers keep one shape. On by default in prod; `-c webAcl=false` leaves it out,
 * `-c webAcl=true` adds it to dev.
 */
export function addWebAcl(stack: Stack, stage: StageConfig, api: RestApi): CfnWebACL {
  const metric = (name: string) => ({
    cloudWatchMetricsEnabled: true,
    metricName: `${stage.prefix}-${name}`,
    sampledRequestsEnabled: true,
  });
  const acl = new CfnWebACL(stack, 'WebAcl', {
    name: `${stage.prefix}-api`,
    description: 'Per-address rate limit in front of the API',
    scope: 'REGIONAL',
    defaultAction: { allow: {} },
    visibilityConfig: metric('web-acl'),
    rules: [
      {
        name: 'requests-per-address',
        priority: 0,
        action: { block: {} },
        statement: {
          rateBasedStatement: { limit: REQUESTS_PER_ADDRESS_PER_MINUTE, evaluationWindowSec: 60, aggregateKeyType: 'IP' },
        },
        visibilityConfig: metric('requests-per-address'),
      },
    ],
  });
  new CfnWebACLAssociation(stack, 'WebAclAssociation', { resourceArn: api.deploymentStage.stageArn, webAclArn: acl.attrArn });
  return acl;
}

/** Whether the stage gets its web ACL: the stage's default, or `-c webAcl=true|false`. */
export function wantsWebAcl(stage: StageConfig, context: unknown): boolean {
  if (context === undefined) return stage.webAcl;
  if (context === true || context === 'true') return true;
  if (context === false || context === 'false') return false;
  throw new Error(`-c webAcl=${JSON.stringify(context)}: use true or false.`);
}
