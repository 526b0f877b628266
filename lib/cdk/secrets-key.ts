import { Duration } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { SECRETS_KMS_CONTEXT } from '#store/sealing';
import type { ServiceFunction } from './service-function.ts';
import type { StageConfig } from './stage.ts';

/**
 * The main key of secrets at rest (functions/commons/store/sealing.ts): webhook signing secrets and the
 * saved answers that show one are sealed under data keys it makes. Only the functions that seal or open
 * them may use it (the routes marked `secrets` in the route table, and the webhook deliverer, which only opens), only for
 * data keys, and only for what the service asks them for (its encryption context). Rotated yearly by KMS;
 * prod keeps it on a destroy (without it, no webhook's secret opens: every webhook would need a new one).
 */
export function createSecretsKey(scope: Construct, stage: StageConfig): Key {
  return new Key(scope, 'SecretsKey', {
    alias: `alias/${stage.prefix}-secrets-at-rest`,
    description: 'Seals webhook signing secrets at rest (envelope encryption: the functions keep only data keys it wrapped)',
    enableKeyRotation: true,
    removalPolicy: stage.removalPolicy,
    pendingWindow: Duration.days(30),
  });
}

/**
 * Lets `fn` unwrap data keys under `key` for the service's secrets (`open`), and make them too (`seal`: the
 * routes that seal a new secret, which also open it when an Idempotency-Key replays their answer), and
 * tells it which key.
 */
export function grantSecrets(key: Key, fn: ServiceFunction, use: 'seal' | 'open'): void {
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: use === 'seal' ? ['kms:GenerateDataKey', 'kms:Decrypt'] : ['kms:Decrypt'],
      resources: [key.keyArn],
      conditions: {
        StringEquals: Object.fromEntries(Object.entries(SECRETS_KMS_CONTEXT).map(([k, v]) => [`kms:EncryptionContext:${k}`, v])),
      },
    }),
  );
  fn.addEnvironment('WEBHOOK_SECRETS_KMS_KEY_ID', key.keyArn);
}
