import { Duration, Stack } from 'aws-cdk-lib';
import { AccountRootPrincipal, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { SECRETS_KMS_CONTEXT } from '#store/sealing';
import type { ServiceFunction } from './service-function.ts';
import type { StageConfig } from './stage.ts';

/**
 * What the key's administrators (the account, through IAM) may do with it: manage it, never use it
 * (AWS's separation of key administrators from key users). Its policy, not IAM, names who may use it.
 */
const KEY_ADMINISTRATION = [
  // CreateAlias, not Create*: a grant (CreateGrant) would let its grantee use the key past this policy's conditions.
  'kms:CreateAlias',
  'kms:Describe*',
  'kms:Enable*',
  'kms:List*',
  'kms:Put*',
  'kms:Update*',
  'kms:Revoke*',
  'kms:Disable*',
  'kms:Get*',
  'kms:Delete*',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:ScheduleKeyDeletion',
  'kms:CancelKeyDeletion',
  'kms:RotateKeyOnDemand',
];

/**
 * What a function may ask of the key, statement by statement: unwrap data keys of the service's secrets,
 * and, where it seals, make new ones, each naming its workspace. An unwrap names its workspace too, but
 * where the stack still opens values sealed before each data key was a workspace's (sealing.ts's v1, under
 * the service's context alone: `legacySecrets`, `-c legacySecrets=refuse` ends it). No context key but the
 * service's and `workspace` is accepted.
 */
function secretsKeyUses(use: 'seal' | 'open', legacySecrets: boolean) {
  const context = {
    StringEquals: Object.fromEntries(Object.entries(SECRETS_KMS_CONTEXT).map(([k, v]) => [`kms:EncryptionContext:${k}`, v])),
    'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...Object.keys(SECRETS_KMS_CONTEXT), 'workspace'] },
  };
  const namesWorkspace = { ...context, Null: { 'kms:EncryptionContext:workspace': 'false' } };
  const open = { actions: ['kms:Decrypt'], conditions: legacySecrets ? context : namesWorkspace };
  const seal = { actions: ['kms:GenerateDataKey'], conditions: namesWorkspace };
  return use === 'seal' ? [seal, open] : [open];
}

/**
 * The main key of secrets at rest (functions/commons/store/sealing.ts): webhook signing secrets and the
 * saved answers that show one are sealed under data keys it makes, one per workspace (the encryption
 * context names it, so the key's log says whose secret each use was for). Its policy is explicit: the
 * account administers it but may not use it; only the functions that seal or open secrets may (the
 * routes marked `secrets` in the route table, and the webhook deliverer, which only opens: grantSecrets
 * names each role in the policy), only for data keys, and only for the service's encryption context.
 * Rotated yearly by KMS; prod keeps it on a destroy (without it, no webhook's secret opens: every webhook
 * would need a new one).
 */
export function createSecretsKey(scope: Construct, stage: StageConfig): Key {
  return new Key(scope, 'SecretsKey', {
    alias: `alias/${stage.prefix}-secrets-at-rest`,
    description: 'Seals webhook signing secrets at rest (envelope encryption: the functions keep only data keys it wrapped)',
    enableKeyRotation: true,
    removalPolicy: stage.removalPolicy,
    pendingWindow: Duration.days(30),
    policy: new PolicyDocument({
      statements: [
        new PolicyStatement({
          sid: 'KeyAdministratorsManageButDoNotUse',
          principals: [new AccountRootPrincipal()],
          actions: KEY_ADMINISTRATION,
          resources: ['*'],
        }),
      ],
    }),
  });
}

/**
 * Lets `fn` unwrap data keys under `key` for the service's secrets (`open`), and make them too (`seal`: the
 * routes that seal a new secret, which also open it when an Idempotency-Key replays their answer), and
 * tells it which key.
 */
export function grantSecrets(key: Key, fn: ServiceFunction, use: 'seal' | 'open', legacySecrets: boolean): void {
  if (fn.roleName === undefined) throw new Error(`${fn.node.path} uses the secrets key: give it a named role (namedRole)`);
  // By its name, not a reference: the role lives in a room (a nested stack) that already refers to the key.
  const role = Stack.of(key).formatArn({ service: 'iam', region: '', resource: 'role', resourceName: fn.roleName });
  // Both sides: the key's policy names the role (no one else may use the key), and the role's policy names the key.
  for (const { actions, conditions } of secretsKeyUses(use, legacySecrets)) {
    key.addToResourcePolicy(
      new PolicyStatement({
        principals: [new AccountRootPrincipal()],
        actions,
        resources: ['*'],
        conditions: { ...conditions, ArnEquals: { 'aws:PrincipalArn': role } },
      }),
    );
    fn.addToRolePolicy(new PolicyStatement({ actions, resources: [key.keyArn], conditions }));
  }
  fn.addEnvironment('WEBHOOK_SECRETS_KMS_KEY_ID', key.keyArn);
}

/**
 * `-c legacySecrets`: whether the functions may still open secrets sealed before each data key was a
 * workspace's (`open`, the default: a stack deployed before keeps delivering), or only those whose every
 * use names its workspace (`refuse`: once `npm run check:table` names no such secret).
 */
export function opensLegacySecrets(context: unknown): boolean {
  if (context === undefined || context === 'open') return true;
  if (context === 'refuse') return false;
  throw new Error(`-c legacySecrets=${JSON.stringify(context)}: use open or refuse.`);
}
