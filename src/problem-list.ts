import { ApiError, type ErrorItem } from './errors.js';

/**
 * The problems of one request, gathered so that its answer lists them all at once (docs/contract.md §10.4):
 * each check still throws its ApiError as before, and `check` records it instead of letting it
 * end the request. The answer is the first problem's (its status, `code`, `detail` and extra
 * fields: what v1.1 answered, as the checks run in v1.1's order), with every item in `errors`.
 */
export class ProblemList {
  private first: ApiError | undefined;
  private readonly items: ErrorItem[] = [];

  /** Whether no problem was found so far. */
  get empty(): boolean {
    return this.first === undefined;
  }

  add(error: ApiError): void {
    this.first ??= error;
    this.items.push(...error.errors);
  }

  /** `run`'s value; undefined when it threw an ApiError of the request (4xx), which is recorded. */
  check<T>(run: () => T): T | undefined {
    try {
      return run();
    } catch (error) {
      if (!isRequestProblem(error)) throw error;
      this.add(error);
      return undefined;
    }
  }

  /** `check` for an async check. */
  async checkAsync<T>(run: () => Promise<T>): Promise<T | undefined> {
    try {
      return await run();
    } catch (error) {
      if (!isRequestProblem(error)) throw error;
      this.add(error);
      return undefined;
    }
  }

  /** Throws the answer when a problem was found. */
  throwIfAny(): void {
    const first = this.first;
    if (first !== undefined) throw new ApiError(first.code, first.message, first.extra, first.headers, this.items);
  }
}

function isRequestProblem(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status < 500;
}
