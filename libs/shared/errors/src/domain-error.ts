/**
 * How an error is to be understood by every transport. The HTTP edge maps a kind to a status,
 * the SOAP adapter maps it to a Fault; the fields travel as the spec's `errors` object.
 */
export type ErrorKind =
  | 'invalid' // 400: malformed input
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'not_acceptable' // 406
  | 'conflict' // 409
  | 'gone' // 410
  | 'too_large' // 413
  | 'too_many_requests' // 429: a limit holds; retry later
  | 'unavailable'; // 503: a dependency did not answer

export type ErrorFields = Record<string, string>;

/** An expected failure with a stable code, e.g. `CART.ITEM_NOT_FOUND`, and the spec's `errors` fields. */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    readonly kind: ErrorKind,
    readonly fields: ErrorFields,
    /** Extra top-level members of the error body, e.g. `unavailable` of a 410. */
    readonly extra: Record<string, unknown> = {},
    /** Response headers the HTTP edge sends with it, e.g. `Retry-After` of a 429. */
    readonly headers: Record<string, string> = {},
  ) {
    super(
      `${code}: ${Object.entries(fields)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    this.name = 'DomainError';
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;

export const statusOfKind: Record<ErrorKind, number> = {
  invalid: 400,
  forbidden: 403,
  not_found: 404,
  not_acceptable: 406,
  conflict: 409,
  gone: 410,
  too_large: 413,
  too_many_requests: 429,
  unavailable: 503,
};

/** Input that failed validation; one field a problem, as the spec's `errors` object wants. */
export class ValidationError extends DomainError {
  constructor(fields: ErrorFields, code = 'REQUEST.INVALID') {
    super(code, 'invalid', fields);
    this.name = 'ValidationError';
  }
}

type Issues = ReadonlyArray<{
  path: ReadonlyArray<PropertyKey>;
  message: string;
  code?: string;
  keys?: ReadonlyArray<PropertyKey>;
  expected?: unknown;
}>;

/** What a request whose body is well-formed JSON but not an object (`null`, `3`, `"x"`, `[]`) is told, under `body`. */
export const NOT_A_JSON_OBJECT = 'must be a JSON object';

/**
 * Turns zod-style issues (path + message) into one `errors` field each, under `prefix` when given. A key the
 * schema does not know is named by itself (`{qty: "unknown field"}`), as every other bad field is, not
 * lumped under `body`.
 */
export function fieldsFromIssues(issues: Issues, prefix: ReadonlyArray<PropertyKey> = []): ErrorFields {
  const fields: ErrorFields = {};
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys' && issue.keys?.length) {
      for (const key of issue.keys) fields[[...prefix, ...issue.path, key].map(String).join('.')] ??= 'unknown field';
    } else if (issue.path.length === 0 && prefix.length === 0 && issue.code === 'invalid_type' && issue.expected === 'object') {
      fields['body'] ??= NOT_A_JSON_OBJECT;
    } else {
      fields[[...prefix, ...issue.path].map(String).join('.') || 'body'] ??= issue.message;
    }
  }
  return fields;
}

/** Parses input with a zod-style schema; a body that does not fit is a 400 with one `errors` field per problem. */
export function parseInput<T>(
  schema: { safeParse(input: unknown): { success: true; data: T } | { success: false; error: { issues: Issues } } },
  body: unknown,
): T {
  const result = schema.safeParse(body ?? {});
  if (!result.success) throw new ValidationError(fieldsFromIssues(result.error.issues));
  return result.data;
}
