import { describe, expect, test } from 'vitest';
import { routes } from '#http/routes';
import { CONSUMER_TABLE_ACCESS, routeTableAccess } from '#lib/tableAccess';
import { refusal } from '#local/tableAccess';

/** The local stand-in for the deployed IAM policies refuses what they refuse, and nothing else. */
const route = (name: string) => routeTableAccess(routes.find((r) => r.name === name)!);
const key = (pk: string, sk = 'X') => ({ PK: { S: pk }, SK: { S: sk } });
const get = (pk: string) => ({ TableName: 't', Key: key(pk) });

describe('a route', () => {
  test('reads its collections, and nothing else: no token item, no receipt, no other room', () => {
    expect(refusal(route('get-project'), 'GetItem', get('WS#acme'))).toBeUndefined();
    expect(refusal(route('get-project'), 'GetItem', get('PROJECT#p1'))).toBeUndefined();
    expect(refusal(route('get-project'), 'GetItem', get('TOKEN#abc'))).toMatch(/TOKEN#abc is outside/);
    expect(refusal(route('get-project'), 'GetItem', get('RECEIPT#e1'))).toMatch(/outside/);
    expect(refusal(route('get-project'), 'GetItem', get('WEBHOOK#acme#wh_1'))).toMatch(/outside/);
    expect(refusal(route('get-webhook'), 'GetItem', get('PROJECT#p1'))).toMatch(/outside/);
    // The webhooks room's partitions are its own: no project, label or history route reaches them.
    for (const name of ['get-project', 'create-label', 'list-activities'])
      for (const pk of ['HOOKS#acme', 'WEBHOOK#acme#wh_1']) expect(refusal(route(name), 'GetItem', get(pk)), name).toMatch(/outside/);
    // A webhook route reads the workspace's collection (a project filter's project) where it must, and never writes it.
    expect(refusal(route('create-webhook'), 'GetItem', get('WS#acme'))).toBeUndefined();
    expect(refusal(route('create-webhook'), 'PutItem', { TableName: 't', Item: key('WS#acme') })).toMatch(/outside .* for a write/);
    expect(refusal(route('get-webhook'), 'GetItem', get('WS#acme'))).toMatch(/outside/);
  });

  test('reaches the Idempotency-Key partitions only where it is a POST', () => {
    expect(refusal(route('create-project'), 'PutItem', { TableName: 't', Item: key('IDEMPOTENCY#acme#h') })).toBeUndefined();
    expect(refusal(route('update-project'), 'PutItem', { TableName: 't', Item: key('IDEMPOTENCY#acme#h') })).toMatch(/outside/);
  });

  test('a read route never writes; no function scans; indexes only where it queries them', () => {
    expect(refusal(route('get-project'), 'PutItem', { TableName: 't', Item: key('WS#acme') })).toMatch(/read-only/);
    expect(refusal(route('list-projects'), 'Scan', { TableName: 't' })).toMatch(/Scan is not allowed/);
    const byStatus = (pk: string) => ({
      TableName: 't',
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': { S: pk } },
    });
    expect(refusal(route('list-projects'), 'Query', byStatus('WS#acme#STATUS#completed'))).toBeUndefined();
    expect(refusal(route('list-projects'), 'Query', byStatus('TOKEN#abc'))).toMatch(/index partition TOKEN#abc is outside/);
    expect(refusal(route('list-webhooks'), 'Query', byStatus('WS#acme#STATUS#completed'))).toMatch(/index GSI1/);
    // Only the routes that query an index may: a label route, in the projects' room, may not.
    expect(refusal(route('list-labels'), 'Query', byStatus('WS#acme#STATUS#completed'))).toMatch(/index GSI1/);
  });

  test('every item of a batch and of a transaction is held to it', () => {
    const batch = { RequestItems: { t: { Keys: [key('WS#acme'), key('TOKEN#abc')] } } };
    expect(refusal(route('get-project'), 'BatchGetItem', batch)).toMatch(/TOKEN#abc/);
    const transaction = {
      TransactItems: [{ Put: { TableName: 't', Item: key('WS#acme') } }, { Delete: { TableName: 't', Key: key('RECEIPT#e') } }],
    };
    expect(refusal(route('create-label'), 'TransactWriteItems', transaction)).toMatch(/RECEIPT#e/);
  });
});

test('the webhook deliverer makes only the operations it is allowed', () => {
  const deliverer = CONSUMER_TABLE_ACCESS['webhook-deliverer'];
  expect(refusal(deliverer, 'UpdateItem', { TableName: 't', Key: key('WEBHOOK#acme#wh') })).toBeUndefined();
  expect(refusal(deliverer, 'DeleteItem', { TableName: 't', Key: key('WEBHOOK#acme#wh') })).toMatch(/not among its operations/);
  expect(refusal(CONSUMER_TABLE_ACCESS.authorizer, 'GetItem', get('WS#acme'))).toMatch(/outside/);
});
