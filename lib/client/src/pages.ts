/** A page as lists answer it: its items and, while more follow, the cursor of the next. */
interface Page<I> {
  data: I[];
  meta?: { next_cursor?: string | null };
}

/**
 * A list call: awaited, its one page (`{ data, meta }`); iterated with `for await`, every item of every
 * page, once, in order, following `meta.next_cursor` until it is null.
 */
export class PagePromise<A, I> implements PromiseLike<A>, AsyncIterable<I> {
  #first: Promise<A> | undefined;
  readonly #fetch: (cursor?: string) => Promise<A>;

  constructor(fetchPage: (cursor?: string) => Promise<A>) {
    this.#fetch = fetchPage;
  }

  /** The first page, asked for once however often it is awaited (asked again after a failure). */
  #firstPage(): Promise<A> {
    if (!this.#first) {
      const first = this.#fetch();
      this.#first = first;
      first.catch(() => {
        if (this.#first === first) this.#first = undefined;
      });
    }
    return this.#first;
  }

  then<R1 = A, R2 = never>(
    onfulfilled?: ((value: A) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#firstPage().then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<A | R> {
    return this.#firstPage().catch(onrejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<I> {
    let page = (await this.#firstPage()) as Page<I>;
    for (;;) {
      yield* page.data;
      const next = page.meta?.next_cursor;
      if (!next) return;
      page = (await this.#fetch(next)) as Page<I>;
    }
  }
}
