/**
 * The CLI's failures, each with its exit code: a usage mistake is 2 (the usage text follows),
 * anything else the operator should read is 1. Messages never contain the admin token.
 */
export class CliError extends Error {
  readonly exitCode: number = 1;
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  override readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The API answered with an error: `detail` is its own words, meant for a person. */
export class ApiFailure extends CliError {
  constructor(
    readonly status: number,
    detail: string,
    readonly code: string | undefined,
  ) {
    super(detail);
    this.name = 'ApiFailure';
  }
}
