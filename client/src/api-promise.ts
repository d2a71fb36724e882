/**
 * The promise each operation returns: it resolves to the data, and `.withResponse()` gives the
 * data with the `Response` it came in (its headers: `apigw-requestid`, and whatever else).
 */

/** The data, and the answer it was read from (its body already read). */
export interface WithResponse<T> {
  readonly data: T;
  readonly response: Response;
}

/** A `Promise` of the data, with `.withResponse()`. */
export class APIPromise<T> extends Promise<T> {
  readonly #answer: Promise<WithResponse<T>>;
  #data?: Promise<T>;

  constructor(answer: Promise<WithResponse<T>>) {
    // The promise itself is a placeholder: then/catch/finally read the answer instead.
    super((resolve) => resolve(undefined as T));
    this.#answer = answer;
  }

  // `then` on a subclass builds another instance through `Symbol.species`; a plain Promise
  // is what chaining should give.
  static override get [Symbol.species]() {
    return Promise;
  }

  /** The data and the `Response`; rejects as the call does. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#answer;
  }

  #read(): Promise<T> {
    return (this.#data ??= this.#answer.then(({ data }) => data));
  }

  override then<A = T, B = never>(
    onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#read().then(onFulfilled, onRejected);
  }

  override catch<B = never>(
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<T | B> {
    return this.#read().catch(onRejected);
  }

  override finally(onFinally?: (() => void) | null): Promise<T> {
    return this.#read().finally(onFinally);
  }
}
