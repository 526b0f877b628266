import type { Stack } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { TABLE } from '#store/table';
import type { StageConfig } from './stage.ts';

/** The one table, from its definition in functions/commons/store/table.ts (the local table reads the same). */
export function createTable(stack: Stack, stage: StageConfig): Table {
  const string = (name: string) => ({ name, type: AttributeType.STRING });
  const table = new Table(stack, 'Table', {
    tableName: stage.prefix,
    partitionKey: string(TABLE.partitionKey),
    sortKey: string(TABLE.sortKey),
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    encryption: TableEncryption.AWS_MANAGED,
    deletionProtection: stage.deletionProtection,
    removalPolicy: stage.removalPolicy,
    timeToLiveAttribute: TABLE.timeToLive,
    stream: StreamViewType[TABLE.stream],
  });
  for (const index of Object.values(TABLE.indexes)) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: string(index.partitionKey),
      sortKey: string(index.sortKey),
      ...(index.projection === 'ALL'
        ? { projectionType: ProjectionType.ALL }
        : { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection] }),
    });
  }
  return table;
}
