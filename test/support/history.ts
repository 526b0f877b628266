import type { NewEntry } from '#store/activityLayout';
import { db } from '#store/client';

/** A `Label Attached` entry of a task of a project, as the stream side makes it of event `eventId` (n names its id). */
export function attachedEntry(
  ws: string,
  n: number,
  occurredAt: string,
  of: { projectSlug: string; projectId: string; task: string; eventId: string },
): NewEntry {
  return {
    id: `act_${String(n).padStart(24, '0')}`,
    type: 'Label Attached',
    occurred_at: occurredAt,
    actor: null,
    company_slug: ws,
    project_slug: of.projectSlug,
    project_id: of.projectId,
    project: null,
    label: { id: 1, slug: 'bug' },
    task_uuid: of.task,
    changes: [],
    event_id: of.eventId,
    request_id: null,
    idempotency_key: null,
  };
}

/**
 * What the store sends while `run` runs, in process: each command's name (`GetItemCommand`, ...), its input, and the
 * kinds of the parts of every transaction (`Put`, `ConditionCheck`, ...).
 */
export async function sentDuring<T>(
  run: () => Promise<T>,
): Promise<{ result: T; commands: string[]; inputs: { command: string; input: Record<string, unknown> }[]; parts: string[] }> {
  const commands: string[] = [];
  const inputs: { command: string; input: Record<string, unknown> }[] = [];
  const parts: string[] = [];
  const name = `sentDuring${Math.random()}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(context.commandName!);
      inputs.push({ command: context.commandName!, input: args.input as Record<string, unknown> });
      if (context.commandName === 'TransactWriteItemsCommand')
        parts.push(...(args.input as { TransactItems: object[] }).TransactItems.map((i) => Object.keys(i)[0]!));
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await run(), commands, inputs, parts };
  } finally {
    db.middlewareStack.remove(name);
  }
}

/** How many items of partition `pk` the writes `run` sends touch (transaction parts and single writes). */
export async function partitionWrites(pk: string, run: () => Promise<unknown>): Promise<number> {
  type Target = { Key?: { PK?: string }; Item?: { PK?: string } } | undefined;
  const inPartition = (i: Target) => (i?.Key ?? i?.Item)?.PK === pk;
  const { inputs } = await sentDuring(run);
  return inputs
    .map(({ command, input }) => {
      if (command === 'TransactWriteItemsCommand')
        return ((input.TransactItems ?? []) as Record<string, Target>[]).filter((t) => inPartition(Object.values(t)[0])).length;
      return /^(Put|Update|Delete)Item/.test(command) && inPartition(input as Target) ? 1 : 0;
    })
    .reduce((a, b) => a + b, 0);
}
