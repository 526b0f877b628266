/**
 * The steps toward the target that have landed, key by key: the mix's rate before the change (as this page gave it,
 * measured on the code before) and what changed. The page adds the rate after, as the model measures it now.
 */
export interface Step {
  key: string;
  before: number;
  change: string;
}

export const TARGET_STEPS: readonly Step[] = [
  {
    key: 'ACTIVITY#<ws>#PROJECTID#<project>',
    before: 2_597,
    change: "one partition became 8 shards, by the entry's place",
  },
  { key: 'ACTIVITY#<ws>#TASK#<task>', before: 3_125, change: "one partition became 4 shards, by the entry's place" },
  { key: 'ACTIVITY#<ws>#SHARD#<shard>', before: 9_412, change: '4 shards became 8' },
  {
    key: 'ACTIVITY#<ws>#MARKS#<shard>',
    before: 9_524,
    change: '4 shards became 8; an event from before the change is also looked for where its mark was made under 4',
  },
  {
    key: 'WEBHOOK#<ws>#<webhook>',
    before: 1_587,
    change: "one partition became 8 shards, by a hash of the delivery's id (its payload and attempts beside it)",
  },
  {
    key: 'LABEL#<ws>#<label>',
    before: 3_018,
    change: 'one partition became 8 shards, the label side of each link by a hash of its task (the task side names the shard)',
  },
  {
    key: 'PROJECT#<project>',
    before: 1_153,
    change: "an inbound event's state is one conditional put (it was a transaction with the project item)",
  },
  {
    key: 'WS#<ws>',
    before: 1_272,
    change: 'an inbound event no longer touches the project item (a state written after its project went is removed by the stream)',
  },
  {
    key: 'GSI1 WS#<ws>#STATUS#<status>',
    before: 4_494,
    change: "a project's counters left its item, which the index copies whole: the stream sums them per batch into an item of their own",
  },
  {
    key: 'GSI2 WS#<ws>#NAME',
    before: 4_494,
    change: "the same: an inbound event or a label count no longer rewrites the project's entry",
  },
  {
    key: 'PROJECT#<project>',
    before: 1_307,
    change:
      "a task's links, version, state and detach notes went to 16 shards of their own by a hash of the task (a member's or sprint's state by its name); the use counters and label set, left alone in the first partition, are read by one Query",
  },
  {
    key: 'WS#<ws>',
    before: 1_489,
    change:
      "tombstones: a deleted project or label marks every shard of its collection, and a link's transaction checks the marks where it writes instead of the project's and label's items here (0.58 write units a request -> 0.14); its reads, unchanged, still cap it",
  },
  {
    key: 'LABEL#<ws>#<label>',
    before: 19_920,
    change: "the same marks: an attach checks the label's in the shard its link's label side goes to (two write units)",
  },
  {
    key: 'PROJECT#<project>',
    before: 11_553,
    change:
      "the same marks: an attach checks the project's in its task's home; and the model counts the first partition apart from the homes, which it never shares a partition with (it added the two)",
  },
  {
    key: 'WS#<ws>',
    before: 1_489,
    change:
      "label copies: each label's item has a copy in each of 8 partitions of its own, written in the same transaction, and a read of labels takes any one (2.01 read units a request here -> 0.75, its projects' items now)",
  },
  {
    key: 'WS#<ws>',
    before: 4_000,
    change:
      "project copies: each project's item has a copy in the same 8 partitions, written with it, and a read of a project takes any one (0.75 read units a request here -> 0.01; its write units now cap it)",
  },
  {
    key: 'WS#<ws>',
    before: 5_405,
    change:
      "title guards: a label's title guard has a partition of its own (`LABEL#<ws>#TITLE#<title>`), so a label's create, rename or delete writes no guard here, only its label item, the count (a create or a delete) and the id counter (a create) (0.19 write units a request here -> 0.16)",
  },
  {
    key: 'WS#<ws>',
    before: 6_452,
    change:
      "label tallies: the workspace's label count and label id counter have a partition of their own (`LABEL#<ws>#TALLY`), so a label's create or delete writes its label item alone here (0.16 write units a request here -> 0.12)",
  },
  {
    key: 'WS#<ws>',
    before: 8_696,
    change:
      "a project's create checks its mark in its own partition when it writes its copies (each put only where none is), not its item here (0.12 write units a request here -> 0.09); the copies' partitions now saturate first",
  },
];

/** The step after step `i` of the same key, if any. */
export const nextStep = (i: number): Step | undefined => TARGET_STEPS.slice(i + 1).find((t) => t.key === TARGET_STEPS[i]!.key);

/** What the steps cost and keep, said once under their table. */
export const TARGET_STEPS_NOTE = `The history's shards moved nothing: a copy's shard 0 is the partition it had, and the workspace's and the marks'
first 4 shards are those of before, so every read merges old and new entries, and a cursor minted before (bound to
shard 0) goes on. Histories are written as before for 15 minutes after the new version's first write on a table
(a table the local tools make new is spread from the start), so that a function of the version before, mid-deploy,
misses nothing; a record marked before, delivered again, is still recorded once. What it costs: a project's history
page reads its 8 shards (the route table "At the limits", GET /activities: 13.5 read units before, the figure there
now), a task's its 4.

A webhook's deliveries moved nothing either: shard 0 is the partition they had (its health and recovery lease stay
there), a delivery's id names its shard, and a page of the log or a recovery's range merges every shard (a cursor
minted before goes on). Deliveries go on in shard 0 for 15 minutes after the new version's first delivery on a table,
and those of events from then on spread. What it costs: a page of the log reads 8 partitions (the route table "At the
limits", GET /webhooks/{id}/deliveries).

A label's links moved nothing: shard 0 is the partition its collection had (its label-set memberships and deletion job
stay there), and the task side of a link names the shard of its label side (none: shard 0), so a detach, a deleted
task and a project's cascade delete it where it is; a label's tasks and its cascade merge every shard (a cursor minted
before goes on). Links are made in shard 0 for 15 minutes after the new version's first attach on a table, then
spread. What it costs: a page of a label's tasks reads 8 partitions (GET /projects-labels/{slug}/tasks: 1 Query and
4 read units for the sample before, 8 Queries and 10 now; 17 read units at the limits before, 22 now), and the mix's
read units per request went from 3.85 to 4.19 ($8.01 to $8.06 per million requests at 1,000 a second).

A project's counters moved nothing either: its item keeps them as they stood (its base), and what changes them since is
kept apart (\`STATS#<ws>#<slug>\`, beside the item by slug, read with it): an inbound event writes its task's, member's or
sprint's state alone (one conditional put), and the stream processor sums a batch's state changes and label counts of a
project into that item once per batch, each record once (a receipt, so a redelivered or split batch counts nothing
twice), checking that the project is still that one (a state written just after its project's delete is removed
there). A read adds the two.
Counts go on on the item for 15 minutes after the new version's first count on a table, as the version before counts.
What it costs: the project's and its stats' reads read two items (GET /projects/{slug}: 1 read unit before, 2 now),
each state change a receipt, and the mix's units per request went from 4.19 to 4.37 read and 6.43 to 6.35 write ($8.06
to $8.03 per million requests at 1,000 a second). A link's attach still checked the project and label items in its
transaction (the tombstones step below replaced those checks).

A project's tasks moved nothing at first: shard 0 is the partition the collection had, and a task made before keeps
its version item and its links of before there (new links go home) until \`npm run rekey\` moves them home (its
links copied home a step at a time and marked where they were, then its version moved in one transaction, the move's
commit, then the marked links deleted: the stream makes no event and no count of any of it). New tasks are made in
shard 0 for 15 minutes after the new version's first attach on a table, then at home; until rekey has moved every task
and said so on the table, a task is read in its home and in shard 0 (two Queries), and a new one's first attach checks
that no writer made it in the other. The project's use counters and label set stay in shard 0, with its deletion job
and nothing else once the table is rekeyed, so one Query reads both (GET /task-labels: 3 Queries before, 2 now). What it
costs: the project's cascade covers every shard (17 Queries for a deleted project's last round); a bulk attach is applied
24 tasks at a time before the table is rekeyed, 32 after; the use counters' once-per-batch writes come from every
stream shard the task shards feed.

Tombstones moved nothing either: a delete of a project or label writes, in its transaction, a mark (\`GONE\`, expiring
after two days) in each shard of its collection (17 for a project, 8 for a label), and an attach, a toggle or a label-set
add checks that the shard it writes has none, instead of checking the project's and label's items in \`WS#<ws>\`; ids
are never reused, so a mark answers for its project or label alone, and a write that read before the delete fails on it
(404) as it failed on the items. For 15 minutes after the new version's first attach on a table an attach checks the
items as well, as a delete of the version before marks nothing. What it costs: a project's delete writes 17 more
items and a label's 8 (the route table: DELETE /projects/{slug} 10 write units before, the figure there now), and the
mix's write units per request went from 6.35 to 6.52 ($8.01 to $8.11 per million requests at 1,000 a second); the
checks' write units moved from \`WS#<ws>\` to the shards. The stream processor's counter writes then left the project's
item too, for its mark in the first partition, where its use counters are (the 128 write units a second of stream
batches that \`WS#<ws>\` took at the mix's rate); they check the item as well for a day after the 15 minutes, as a
stream record may be handled a day after the write that read its project, and marks last two days.

Label copies moved nothing either: the label's item stays where it was, every write of it (create, recolor, rename,
delete) writes its 8 copies (\`WS#<ws>#COPY#<n>\`) in the same transaction, and reads (a label, labels by slug, the
list) take one copy at random once \`npm run rekey\` has copied every label, 15 minutes after the new version first wrote
one on a table (until then they read the item, as a function of the version before writes the item alone). A copy is
written in its item's transaction, so a read of it is as strong as one of the item: a client reads its own write from
any (a write that lost its condition reads the item, so a copy a rollback left behind is put right by the next rename). What it costs: a label's writes are
transactions of 8 more items (a recolor, one UpdateItem before, is now a transaction of the same update on the item
and its copies, and a read of the label after: the route table, PUT /projects-labels/{slug}), and the mix's write units per request went from 6.52 to 6.84 ($8.11 to $8.31 per million
requests at 1,000 a second).

Project copies are the same, in the same partitions (\`PROJECT#<slug>\` beside the labels' \`LABEL#<slug>\`), without the
item's index keys (a copy is in no index, and the lists of projects stay on the items, so their cursors are as before):
an update and a delete write the item and its 8 copies in one transaction, a create writes its item (its slug's
condition) and then its copies (a read that finds no copy reads the item, so none is ever missed), and a read of a project (its
page, its stats, every route that resolves a project by slug) takes a copy at random once \`npm run rekey\` has copied
every project, which it does only once the version before can neither write a project nor count on one (its stats
counted through the stream). An update on a copied table makes the same update on the item and each copy, with no
read before it, and reads its answer from a copy. What it costs: a project's writes are transactions of 8 more items
(POST /projects 3 write units before, 21 now; PUT /projects/{slug} 3 and 22; DELETE 44 and 60), and the mix's write
units per request went from 6.84 to 7.39 ($8.31 to $8.66 per million requests at 1,000 a second).

Title guards moved with \`npm run rekey\`: until it has given every label its own guard, 15 minutes after the new
version's first label write on a table, a label's create, rename and delete write both guards, the workspace's holding
(its put is conditional, as the version before's is); from then the own one holds, the workspace's is written 6 minutes
more (a function's relook and a clock's skew) and then deleted by the next rekey. Titles stay unique at every stage. What
it costs: nothing once moved (the same items, written elsewhere: the mix's units per request are as they were); during
the move, a label write writes one guard more.

Label tallies moved by themselves: for 15 minutes and a clock's skew after the new version's first label write on a
table the workspace's count and id counter hold (a write conditional on their not being sealed); from then the first create or delete in a
workspace moves its tally, in one transaction that seals the workspace's items as read and puts their values in its own
(a create that went by the sealed ones fails, reads again and is made on the own ones, under a later id: ids are never
reused, the count never loses one), and \`npm run rekey\` moves those of workspaces no one wrote. What it costs: nothing
once moved (the same items, written elsewhere); until rekey has said all are moved, a read more on each label create
and delete (the workspace's count first, the own counter after), and in a workspace not moved yet, the move (two reads
and a transaction of 3 or 4 items).

Then a project's create stopped checking its item when it writes its copies: the copies' transaction checks the
project's mark in its own first partition (\`PROJECT#<project>\`: not deleted since) and puts each copy only where none
is (an update between put them from a newer item), once deletes all mark (the tombstones' window); until then it checks
the item as before. That takes the create's check, 2 write units, off \`WS#<ws>\` (POST /projects: 3 write units there
-> 1), and the mix's first key is now the copies' partitions at 10,000, where every write of a project or a label writes
a copy (a read takes any one).`;
