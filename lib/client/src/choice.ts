/**
 * Answers that follow the parameters given (the route rows' `answerChoice`): a list answered whole or by the
 * page, of one kind of item or another. Each parameter is given ('yes'), not given ('no'), or maybe (an
 * optional member, a value that may be undefined): the types answer exactly where they can, both where not.
 */

/** Whether parameters `P` give `K`. */
export type Given<P, K extends PropertyKey> = K extends keyof P
  ? [Exclude<P[K], undefined>] extends [never]
    ? 'no'
    : undefined extends P[K]
      ? 'maybe'
      : 'yes'
  : 'no';

/** Whether `P` gives any of `Ks`. */
export type AnyGiven<P, Ks extends PropertyKey> = 'yes' extends Given<P, Ks> ? 'yes' : 'maybe' extends Given<P, Ks> ? 'maybe' : 'no';

/** `Y` where `G` is yes, `N` where no, either where maybe. */
export type Either<G, Y, N> = G extends 'yes' ? Y : G extends 'no' ? N : Y | N;

/** A list of items `I` (each kind of item a list of its own) with its `meta`. */
export type ListOf<I, M> = I extends unknown ? { data: I[]; meta: M } : never;

/** One answer of items `I` (each kind of item a list of its own). */
export type DataOf<I> = I extends unknown ? { data: I[] } : never;
