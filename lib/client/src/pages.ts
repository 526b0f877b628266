import type { ResponseInfo } from './response.js';

/** A page as lists answer it: its items and, while more follow, the cursor of the next (a 304 answers no page). */
interface Page<I> {
  data?: I[];
  meta?: { next_cursor?: string | null };
  notModified?: boolean;
}

/**
 * A list call: a real `Promise` of its first page (`{ data, meta }`: `then`, `catch`, `finally`, `instanceof
 * Promise`); iterated with `for await`, every item of every page, once, in order, following
 * `meta.next_cursor` until it is null; `iterPages()` gives the pages themselves. The first page is asked for
 * once however often it is awaited (asked again after a failure).
 */
export class PagePromise<A, I> extends Promise<A> implements AsyncIterable<I> {
  #first: Promise<{ data: A; response: ResponseInfo }> | undefined;
  readonly #fetchPage: (cursor?: string) => Promise<{ data: A; response: ResponseInfo }>;

  // Its `then` is its own: the base promise is never settled, nor used.
  static override get [Symbol.species]() {
    return Promise;
  }

  constructor(fetchPage: (cursor?: string) => Promise<{ data: A; response: ResponseInfo }>) {
    super(() => undefined);
    this.#fetchPage = fetchPage;
  }

  #fetch(cursor?: string): Promise<A> {
    return this.#fetchPage(cursor).then((a) => a.data);
  }

  #firstAnswer(): Promise<{ data: A; response: ResponseInfo }> {
    if (!this.#first) {
      const first = this.#fetchPage();
      this.#first = first;
      first.catch(() => {
        if (this.#first === first) this.#first = undefined;
      });
    }
    return this.#first;
  }

  #firstPage(): Promise<A> {
    return this.#firstAnswer().then((a) => a.data);
  }

  /** The first page, and the response it came in (status, headers, request id). */
  withResponse(): Promise<{ data: A; response: ResponseInfo }> {
    return this.#firstAnswer();
  }

  override then<R1 = A, R2 = never>(
    onfulfilled?: ((value: A) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#firstPage().then(onfulfilled, onrejected);
  }

  override catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<A | R> {
    return this.#firstPage().catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<A> {
    return this.#firstPage().finally(onfinally);
  }

  /**
   * Every page, in order, following `meta.next_cursor` until it is null, or (the history oldest first, whose
   * sync token never is) until it names the place just read: caught up. A 304 (nothing changed) is no page.
   */
  async *iterPages(): AsyncGenerator<A> {
    let page = await this.#firstPage();
    let cursor: string | undefined;
    for (;;) {
      if ((page as Page<I>).notModified) return;
      yield page;
      const next = (page as Page<I>).meta?.next_cursor;
      if (!next || next === cursor) return;
      cursor = next;
      page = await this.#fetch(next);
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<I> {
    for await (const page of this.iterPages()) yield* (page as Page<I>).data ?? [];
  }
}
