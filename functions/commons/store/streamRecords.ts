import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { Item } from './query';

/**
 * A record of the table's stream, decoded: which item changed and how, with its images as plain
 * items. `id` is the record's event id, the same on every redelivery of the record.
 */
export interface Change {
  id: string;
  kind: 'INSERT' | 'MODIFY' | 'REMOVE';
  /** The item's type (`type` attribute of the new image, or of the old one on REMOVE). */
  type: string | undefined;
  before?: Item;
  after?: Item;
  /** When DynamoDB wrote the change (ISO 8601), for events whose item carries no time of its own. */
  at: string;
}

type Image = Record<string, AttributeValue>;

export function changeOf(record: DynamoDBRecord): Change {
  const data = record.dynamodb ?? {};
  // Lambda's and the SDK's AttributeValue types differ only in how they spell the union.
  const before = data.OldImage ? unmarshall(data.OldImage as Image) : undefined;
  const after = data.NewImage ? unmarshall(data.NewImage as Image) : undefined;
  const type = (after ?? before)?.type;
  const seconds = data.ApproximateCreationDateTime;
  return {
    id: record.eventID ?? `${data.SequenceNumber ?? ''}`,
    kind: record.eventName ?? 'MODIFY',
    type: typeof type === 'string' ? type : undefined,
    ...(before ? { before } : {}),
    ...(after ? { after } : {}),
    at: new Date(seconds ? seconds * 1000 : Date.now()).toISOString(),
  };
}
