import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  COUNT_OPERATIONS,
  countPatterns,
  indexKeyPatterns,
  leadingKeyPatterns,
  readOnlyPatterns,
  type TableAccess,
} from '#lib/tableAccess';
import { TABLE } from '#store/table';
import type { ServiceFunction } from './service-function.ts';

/** What reading an item takes (a transaction's condition checks among them); never a Scan. */
const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];
/** What writing takes; a TransactWriteItems is allowed item by item by these. */
const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

/**
 * The function's table policy from its declared access (lib/tableAccess.ts, which the local stack
 * holds every function to as well): item actions on the partitions it names (`dynamodb:LeadingKeys`,
 * so no route reaches token items, receipts, or another room's collections), reads alone on those it
 * may only read, UpdateItem and GetItem alone on those it only adds to (a workspace's counts), Query on the indexes it names, each by its name and on the index partitions it keeps
 * (an index's partition key is the leading key of a query of it). No Scan: ForAllValues over the keys of
 * a Scan, which names none, would hold, so a Scan must never be among the actions.
 */
export function grantTableAccess(fn: ServiceFunction, table: Table, access: TableAccess): void {
  // A function that reaches no partition (a route answering from its code alone) gets no table grant at all.
  if (access.partitions.length === 0 && access.indexes.length === 0) return;
  const onKeys = (keys: string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': keys } });
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: access.operations?.map((o) => `dynamodb:${o}`) ?? (access.write ? [...READ_ACTIONS, ...WRITE_ACTIONS] : READ_ACTIONS),
      resources: [table.tableArn],
      conditions: onKeys(leadingKeyPatterns(access)),
    }),
  );
  const readOnly = readOnlyPatterns(access);
  if (readOnly.length > 0)
    fn.addToRolePolicy(new PolicyStatement({ actions: READ_ACTIONS, resources: [table.tableArn], conditions: onKeys(readOnly) }));
  const counts = countPatterns(access);
  if (counts.length > 0)
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: COUNT_OPERATIONS.map((o) => `dynamodb:${o}`),
        resources: [table.tableArn],
        conditions: onKeys(counts),
      }),
    );
  if (access.indexes.length > 0)
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: access.indexes.map((index) => `${table.tableArn}/index/${TABLE.indexes[index].name}`),
        conditions: onKeys(indexKeyPatterns(access)),
      }),
    );
}
