import type { Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { Key } from 'aws-cdk-lib/aws-kms';
import type { ServiceFunction } from './service-function.ts';

/** What the parts of the stack hand each other while it is built (ServiceStack holds them). */
export interface ServiceParts extends Stack {
  readonly table: Table;
  readonly api: RestApi;
  readonly bus: IEventBus;
  /** The main key of secrets at rest (secrets-key.ts). */
  readonly secretsKey: Key;
  /** Whether the functions may open secrets sealed before data keys were per workspace (secrets-key.ts). */
  readonly legacySecrets: boolean;
  readonly functions: Map<string, ServiceFunction>;
}

/** `get-project` -> `GetProject`: stable logical ids derived from names (a route's function, a room's stack). */
export function functionId(name: string): string {
  return name.replace(/(^|-)([a-z0-9])/g, (_, _dash: string, c: string) => c.toUpperCase());
}
