import { ItemType, keys } from '#store/keys';
import { freeLease, takeLease } from '#store/leases';

/**
 * A workspace's slots for outbound calls made on request (pings, redeliveries): one leased item per slot
 * (store/leases.ts). They bound how many of the API's functions one workspace's endpoints can hold at once.
 */

/** Takes a free slot of the `slots` the workspace has, for `holder`; undefined when every one is held. */
export async function takeSendSlot(ws: string, slots: number, leaseSeconds: number, holder: string): Promise<number | undefined> {
  for (let slot = 0; slot < slots; slot++) {
    if (await takeLease(keys.sendSlot(ws, slot), { type: ItemType.sendSlot, workspace: ws }, leaseSeconds, holder)) return slot;
  }
  return undefined;
}

/** Frees a slot `holder` took (a slot whose lease ran out and went to another request is left to it). */
export function freeSendSlot(ws: string, slot: number, holder: string): Promise<void> {
  return freeLease(keys.sendSlot(ws, slot), holder);
}
