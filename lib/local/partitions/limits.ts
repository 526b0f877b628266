import { Refusal, type Rule } from '#lib/settings/rules';

/**
 * DYNAMODB_PARTITION_LIMITS, the local partition simulator's setting (docs/local.md, "The partition
 * simulator"): what one partition key value may consume, as DynamoDB holds a hot partition to its
 * limits (deployed: 3,000 read and 1,000 write units per second, 300 seconds of burst).
 */
export interface PartitionLimits {
  /** Read capacity units per second, per partition key value. */
  rcu: number;
  /** Write capacity units per second, per partition key value. */
  wcu: number;
  /** How many seconds of unused units a partition keeps (its bucket holds rate x burst units). */
  burstSeconds: number;
  /**
   * The partitions each key acts as if split for heat into (1: none): its units that many times over,
   * each of its items still at one partition's limits (DynamoDB splits by sort key, never an item).
   */
  split: number;
}

const MAX_UNITS = 100_000;
const MAX_BURST_SECONDS = 300;
const MAX_SPLIT = 64;
const PARTS = ['rcu', 'wcu', 'burst'] as const;

function units(text: string): number | undefined {
  const n = /^\d{1,6}$/.test(text) ? Number(text) : 0;
  return n >= 1 && n <= MAX_UNITS ? n : undefined;
}

function splitOf(text: string): number | undefined {
  const n = /^\d{1,2}$/.test(text) ? Number(text) : 0;
  return n >= 1 && n <= MAX_SPLIT ? n : undefined;
}

function seconds(text: string): number | undefined {
  const n = /^\d{1,3}(\.\d{1,3})?$/.test(text) ? Number(text) : 0;
  return n > 0 && n <= MAX_BURST_SECONDS ? n : undefined;
}

/** The setting's rule, the one place its form is written (lib/settings/table.ts shows it, npm start checks it). */
export const partitionLimitsRule: Rule<PartitionLimits> = {
  accepts: `rcu=, wcu= and burst= separated by commas: the read and write units per second of each partition key value (whole numbers from 1 to ${MAX_UNITS}) and the seconds of unused units it keeps (above 0, at most ${MAX_BURST_SECONDS}), e.g. rcu=20,wcu=10,burst=1; then, if wanted, split= the partitions each key acts as if split for heat into (a whole number from 1 to ${MAX_SPLIT}: its units that many times over, each item still at one partition's), e.g. rcu=20,wcu=10,burst=1,split=4`,
  read: (text) => {
    const given = new Map<string, string>();
    for (const part of text.split(',')) {
      const [, name, value] = /^(rcu|wcu|burst|split)=(\d+(?:\.\d+)?)$/.exec(part) ?? [];
      if (name === undefined || value === undefined) return new Refusal('each part is rcu=, wcu=, burst= or split= and a number');
      if (given.has(name)) return new Refusal(`${name} is given twice`);
      given.set(name, value);
    }
    const missing = PARTS.filter((name) => !given.has(name));
    if (missing.length) return new Refusal(`no ${missing.join(' and no ')}`);
    const rcu = units(given.get('rcu')!);
    const wcu = units(given.get('wcu')!);
    const burstSeconds = seconds(given.get('burst')!);
    if (rcu === undefined) return new Refusal(`rcu is not a whole number from 1 to ${MAX_UNITS}`);
    if (wcu === undefined) return new Refusal(`wcu is not a whole number from 1 to ${MAX_UNITS}`);
    if (burstSeconds === undefined) return new Refusal(`burst is not a number of seconds above 0 and at most ${MAX_BURST_SECONDS}`);
    const split = given.has('split') ? splitOf(given.get('split')!) : 1;
    if (split === undefined) return new Refusal(`split is not a whole number from 1 to ${MAX_SPLIT}`);
    return { rcu, wcu, burstSeconds, split };
  },
};
