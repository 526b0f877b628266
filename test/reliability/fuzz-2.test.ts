import { fuzzRoutes } from '#support/fuzz';

/** Property-based fuzzing over the HTTP API (test/support/fuzz.ts): the routes of part 2 of 3. */
fuzzRoutes(1, 3);
