import { describeRouteFaults, routeShard } from '#support/faults';

/** Fault injection at every DynamoDB call of a route's request (test/support/faults.ts): the routes of part 1 of 5. */
describeRouteFaults(routeShard(0, 5));
