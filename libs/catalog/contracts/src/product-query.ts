import { z } from 'zod';
import { fieldsFromIssues, NO_NUL, NO_NUL_MESSAGE, NOT_A_JSON_OBJECT, type ErrorFields } from '@commerce/shared-errors';

/**
 * The body of `POST products` and `POST uri` (spec: "POST products request body"), validated once at the
 * edge and again by the catalog. Decision 29 records the choices the spec leaves open: the page sizes,
 * ids as integers or digit strings, an empty list restricting nothing, unknown fields refused.
 */

/** `limit` when the body gives none, and its maximum: "with no body all products are returned", up to this many. */
export const MAX_PAGE = 1000;
/** The deepest page start (`skipFirst`); the search engine is set to reach `MAX_SKIP_FIRST + MAX_PAGE` hits. */
export const MAX_SKIP_FIRST = 100_000;
/** At most this many values in one list field (ids, names). */
export const MAX_LIST = 1000;

export const SORT_FIELDS = ['uri', 'categoryItemSort', 'collectionUri', 'priceAsNumber', 'createdAt', 'modifiedAt'] as const;
export type ProductSortField = (typeof SORT_FIELDS)[number];
export const URI_KINDS = ['product', 'category'] as const;
export type UriKind = (typeof URI_KINDS)[number];

const intBetween = (min: number, max: number) => {
  const error = `must be an integer between ${min} and ${max}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};

/** An id the service assigned: a positive integer, or the same as a string of digits (ids are strings in responses). */
const ID_ERROR = 'must be an integer id';
const idValue = z.union(
  [
    z.number({ error: ID_ERROR }).int({ error: ID_ERROR }).min(1, { error: ID_ERROR }).max(Number.MAX_SAFE_INTEGER, { error: ID_ERROR }),
    z
      .string({ error: ID_ERROR })
      .regex(/^[1-9]\d{0,14}$/, { error: ID_ERROR })
      .transform(Number),
  ],
  { error: ID_ERROR },
);
const idList = z.array(idValue, { error: 'must be an array of integer ids' }).max(MAX_LIST, { error: `must have at most ${MAX_LIST} ids` });
const textValue = z
  .string({ error: 'must be a string' })
  .regex(NO_NUL, { error: NO_NUL_MESSAGE })
  // Before the trim, so that the document's pattern says what is refused: a value of blanks only.
  .regex(/\S/, { error: 'must not be empty' })
  .trim()
  .min(1, { error: 'must not be empty' })
  .max(200, { error: 'must be at most 200 characters' });
const textList = z
  .array(textValue, { error: 'must be an array of strings' })
  .max(MAX_LIST, { error: `must have at most ${MAX_LIST} values` });
const flag = z.boolean({ error: 'must be true or false' });
const uriKinds = z
  .array(z.enum(URI_KINDS, { error: 'must be product or category' }), { error: 'must be an array of product and/or category' })
  .min(1, { error: 'must name product and/or category' })
  .max(URI_KINDS.length, { error: 'must name product and/or category' });
const uriText = z
  .string({ error: 'must be a string' })
  .regex(NO_NUL, { error: NO_NUL_MESSAGE })
  .min(1, { error: 'must not be empty' })
  .max(1000, { error: 'must be at most 1000 characters' });

/** A product query in its canonical form: extra product filter fields gathered under `filterFields`. */
export const ProductQuerySchema = z
  .object({
    skipFirst: intBetween(0, MAX_SKIP_FIRST).optional(),
    limit: intBetween(1, MAX_PAGE).optional(),
    categories: idList.optional(),
    collections: idList.optional(),
    products: idList.optional(),
    brands: idList.optional(),
    silkProduct: idValue.optional(),
    search: z
      .string({ error: 'must be a string' })
      .regex(NO_NUL, { error: NO_NUL_MESSAGE })
      .max(500, { error: 'must be at most 500 characters' })
      .optional(),
    relatedProducts: flag.optional(),
    'swatch.desc': textList.optional(),
    'items.name': textList.optional(),
    onlyAvailable: flag.optional(),
    uri: z.object({ uri: uriText, for: uriKinds }, { error: 'must be an object {uri, for}' }).strict().optional(),
    sortOrder: z
      .array(
        z
          .object(
            {
              field: z.enum(SORT_FIELDS, { error: `must be one of ${SORT_FIELDS.join(', ')}` }),
              order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).default('asc'),
            },
            { error: 'must be an object {field, order}' },
          )
          .strict(),
        { error: 'must be an array of {field, order}' },
      )
      .max(SORT_FIELDS.length, { error: `must have at most ${SORT_FIELDS.length} entries` })
      .optional(),
    /** Extra product filter fields the store configuration enables (`productFilterFields`): field → values. */
    filterFields: z.record(z.string(), textList).optional(),
  })
  .strict();
export type ProductQuery = z.input<typeof ProductQuerySchema>;
export type ParsedProductQuery = z.output<typeof ProductQuerySchema>;

/** `POST uri` in canonical form: what to resolve, which kinds may answer, and the listing of a category. */
export const UriQuerySchema = z
  .object({
    uri: uriText,
    for: uriKinds,
    query: ProductQuerySchema.default({}),
  })
  .strict();
export type UriQuery = z.input<typeof UriQuerySchema>;

/**
 * The public body of `POST products` for a store's extra product filter fields, as the OpenAPI document
 * shows it: the fields of `ProductQuerySchema` and one list per extra field, any other key refused (as
 * `parseProductQuery` does; it also takes `swatch.desc` and `items.name` nested).
 */
export function productQueryBody(filterFields: readonly string[]) {
  const { filterFields: _extra, ...fields } = ProductQuerySchema.shape;
  return z.object({ ...Object.fromEntries(filterFields.map((f) => [f, textList.optional()])), ...fields }).strict();
}

/** The public body of `POST uri`: `uri` and `for`, then any field of `POST products` for a category's listing. */
export function uriQueryBody(filterFields: readonly string[]) {
  return productQueryBody(filterFields).extend({ uri: uriText, for: uriKinds });
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: ErrorFields };

/** One `errors` key per bad field: a path such as `sortOrder.0.field`, an unknown key by its own name. */
export function queryErrors(issues: ReadonlyArray<z.core.$ZodIssue>, prefix: PropertyKey[] = []): ErrorFields {
  return fieldsFromIssues(issues, prefix);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const KNOWN_KEYS = new Set(Object.keys(ProductQuerySchema.shape).filter((k) => k !== 'filterFields'));

/**
 * The public body of `POST products` to a canonical query. `swatch.desc` and `items.name` may be sent
 * flat (`{"swatch.desc": […]}`) or nested (`{"swatch": {"desc": […]}}`); keys named in
 * `filterFields` (the store's product filter fields) are gathered under `filterFields`; any other key is
 * an error of its own.
 */
export function parseProductQuery(
  body: unknown,
  filterFields: readonly string[],
  omit: readonly string[] = [],
): Parsed<ParsedProductQuery> {
  if (body === undefined || body === null || body === '') return { ok: true, value: {} };
  if (!isObject(body)) return { ok: false, errors: { body: NOT_A_JSON_OBJECT } };
  const known: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  const errors: ErrorFields = {};
  for (const [key, value] of Object.entries(body)) {
    if (omit.includes(key)) continue;
    if ((key === 'swatch' || key === 'items') && isObject(value) && Object.keys(value).length === 1) {
      const [[inner, innerValue]] = Object.entries(value) as [[string, unknown]];
      const flat = `${key}.${inner}`;
      if (KNOWN_KEYS.has(flat) && !(flat in body)) {
        known[flat] = innerValue;
        continue;
      }
    }
    if (KNOWN_KEYS.has(key)) known[key] = value;
    else if (filterFields.includes(key)) extra[key] = value;
    else errors[key] = 'unknown field';
  }
  if (Object.keys(extra).length > 0) known['filterFields'] = extra;
  const parsed = ProductQuerySchema.safeParse(known);
  if (!parsed.success) {
    // Errors inside filterFields are named by the field the client sent.
    const issues = parsed.error.issues.map((issue) => (issue.path[0] === 'filterFields' ? { ...issue, path: issue.path.slice(1) } : issue));
    for (const [key, message] of Object.entries(queryErrors(issues))) errors[key] ??= message;
  }
  if (!parsed.success || Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: parsed.data };
}

/** The public body of `POST uri`: `{uri, for, limit?, skipFirst?}` and, for a category's listing, any field of `POST products`. */
export function parseUriQuery(body: unknown, filterFields: readonly string[]): Parsed<z.output<typeof UriQuerySchema>> {
  if (!isObject(body))
    return { ok: false, errors: body === undefined || body === null ? { uri: 'is required' } : { body: NOT_A_JSON_OBJECT } };
  const head = z.object({ uri: uriText, for: uriKinds }).safeParse({ uri: body['uri'], for: body['for'] });
  const rest = parseProductQuery(body, filterFields, ['uri', 'for']);
  const errors = {
    ...(head.success ? {} : queryErrors(head.error.issues.map((i) => (i.path.length === 0 ? { ...i, path: ['uri'] } : i)))),
    ...(rest.ok ? {} : rest.errors),
  };
  if (!head.success || !rest.ok) return { ok: false, errors };
  return { ok: true, value: { uri: head.data.uri, for: head.data.for, query: rest.value } };
}
