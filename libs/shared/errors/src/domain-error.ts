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
  origin?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  inclusive?: unknown;
  values?: ReadonlyArray<unknown>;
}>;
type Issue = Issues[number];

/** What a request whose body is well-formed JSON but not an object (`null`, `3`, `"x"`, `[]`) is told, under `body`. */
export const NOT_A_JSON_OBJECT = 'must be a JSON object';

/**
 * Text without a NUL character, which Postgres refuses in text (a server error once it reaches a query): every
 * request string that may is checked against it, as a pattern so that the OpenAPI document states it.
 */
// eslint-disable-next-line no-control-regex -- the NUL character is what the pattern is about
export const NO_NUL = /^[^\u0000]*$/;
export const NO_NUL_MESSAGE = 'must not contain a NUL character';

/** What a field of a JSON body must be, by the type zod expected there. */
const TYPE_WORDS: Record<string, string> = {
  string: 'must be a string',
  number: 'must be a number',
  int: 'must be a whole number',
  boolean: 'must be true or false',
  array: 'must be an array',
  object: 'must be an object',
};

/** zod's own wording (`Invalid input: expected string, received number`): a message the schema did not choose. */
const ZOD_TYPE_MESSAGE = /^Invalid input: expected \S+, received (\S+)$/;
const ZOD_SIZE_MESSAGE = /^Too (small|big): expected /;
const ZOD_OPTION_MESSAGE = /^Invalid (option|input): expected one of /;

/**
 * The message of an issue in the project's wording (decision 119) where zod's own would leak (`Invalid input: expected
 * string, received number`, `Too small: expected number to be >=1`); a message the schema chose is kept.
 */
function messageOf(issue: Issue): string {
  const { message } = issue;
  if (issue.code === 'invalid_type') {
    const zod = ZOD_TYPE_MESSAGE.exec(message);
    if (!zod) return message;
    if (zod[1] === 'undefined') return 'required';
    return TYPE_WORDS[String(issue.expected)] ?? 'has the wrong type';
  }
  if ((issue.code === 'too_small' || issue.code === 'too_big') && ZOD_SIZE_MESSAGE.test(message)) {
    const small = issue.code === 'too_small';
    const bound = small ? issue.minimum : issue.maximum;
    const exclusive = issue.inclusive === false;
    const unit = issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' entries' : '';
    const rule = small ? (exclusive ? 'more than' : 'at least') : exclusive ? 'less than' : 'at most';
    return `must be ${rule} ${String(bound)}${unit}`;
  }
  if (issue.code === 'invalid_value' && ZOD_OPTION_MESSAGE.test(message) && issue.values?.length)
    return `must be one of ${issue.values.map(String).join(', ')}`;
  return message;
}

/**
 * Turns zod-style issues (path + message) into one `errors` field each, under `prefix` when given. A key the
 * schema does not know is named by itself (`{qty: "unknown field"}`), as every other bad field is, not
 * lumped under `body`.
 */
export function fieldsFromIssues(issues: Issues, prefix: ReadonlyArray<PropertyKey> = []): ErrorFields {
  const fields: ErrorFields = {};
  // The first message of a field wins; a field named `__proto__` is an own key like any other (never the prototype).
  const name = (field: string, message: string) => {
    if (!Object.hasOwn(fields, field))
      Object.defineProperty(fields, field, { value: message, enumerable: true, writable: true, configurable: true });
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys' && issue.keys?.length) {
      for (const key of issue.keys) name([...prefix, ...issue.path, key].map(String).join('.'), 'unknown field');
    } else if (issue.path.length === 0 && prefix.length === 0 && issue.code === 'invalid_type' && issue.expected === 'object') {
      name('body', NOT_A_JSON_OBJECT);
    } else {
      name([...prefix, ...issue.path].map(String).join('.') || 'body', messageOf(issue));
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
