import { ItemType, keys } from '#store/keys';
import { type DeliveriesSpreadAt, deliveryShard } from '#webhooks/store/deliveryLayout';

type Item = Record<string, any>;

/**
 * A webhook's deliveries where a read by a delivery's id finds them (functions/commons/webhooks/store/deliveryLayout.ts):
 * a delivery, its payload and its attempts in the shard its id and the service's layout give, and a delivery whose
 * payload is not on it with its payload item beside it. Anything else is said as a violation.
 */
export function deliveryViolations(items: Item[], spreadAt: DeliveriesSpreadAt): string[] {
  const v: string[] = [];
  const at = (id: string, PK: string) => {
    const [ws, webhookId] = PK.replace(/^WEBHOOK#/, '').split('#');
    return keys.webhookDeliveries(ws!, webhookId!, deliveryShard(id, spreadAt));
  };
  const payloads = new Set(items.filter((i) => i.type === ItemType.deliveryPayload).map((i) => `${i.PK} ${i.SK}`));
  for (const i of items) {
    const id = idOf(i);
    if (id === undefined) continue;
    const expected = at(id, i.PK);
    if (i.PK !== expected) v.push(`${i.type} ${i.PK} / ${i.SK} is in a shard where reads by its delivery's id look in ${expected}`);
    if (i.type === ItemType.webhookDelivery && i.payload === undefined) {
      const payload = keys.deliveryPayload(i.workspace, i.webhook_id, i.id, deliveryShard(i.id, spreadAt));
      if (!payloads.has(`${payload.PK} ${payload.SK}`)) v.push(`delivery ${i.PK} / ${i.SK} has no payload`);
    }
  }
  return v;
}

/** The delivery id an item of a webhook's deliveries belongs to (its sort key says it), if it is one. */
function idOf(i: Item): string | undefined {
  if (i.type === ItemType.webhookDelivery) return i.id;
  if (i.type === ItemType.deliveryPayload) return String(i.SK).split('#')[1];
  if (i.type === ItemType.deliveryAttempt) return String(i.SK).split('#')[1];
  return undefined;
}
