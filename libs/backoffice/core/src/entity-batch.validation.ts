import type { z } from 'zod';
import { InvalidEntityError, type EntityProblem } from './backoffice.errors';

type Issue = z.core.$ZodIssue;

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let node: unknown = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

const kindWords: Record<string, string> = {
  string: 'must be text',
  array: 'must be a list',
  object: 'must be an element with child elements',
  number: 'must be a number',
  boolean: 'must be true or false',
};

/** Zod's wording is for programmers; an ERP integrator reads these in a SOAP fault. */
function problemOf(entity: unknown, issue: Issue): EntityProblem {
  const field = issue.path.map(String).join('.');
  if (issue.code === 'invalid_type') {
    if (valueAt(entity, issue.path) === undefined) return { field, problem: 'is required' };
    return { field, problem: kindWords[issue.expected] ?? issue.message };
  }
  return { field, problem: issue.message };
}

/** Whether a value passes a schema, and its output is then the value itself (see fastCheckOf). */
type FastCheck = (value: unknown) => boolean;

interface SchemaInternals {
  _zod: { def: { type: string; checks?: Array<{ _zod: { def: Record<string, unknown> } }>; [k: string]: unknown } };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/** A string's checks: regex formats and refinements (`refine`), each run as zod runs it; anything else: none. */
function stringCheck(checks: SchemaInternals['_zod']['def']['checks']): FastCheck | undefined {
  const tests: Array<(s: string) => boolean> = [];
  for (const check of checks ?? []) {
    const def = check._zod.def;
    if (def['when'] !== undefined) return undefined;
    const pattern = def['pattern'];
    const fn = def['fn'];
    if (def['check'] === 'string_format' && def['format'] === 'regex' && pattern instanceof RegExp && !pattern.global && !pattern.sticky)
      tests.push((s) => pattern.test(s));
    else if (def['check'] === 'custom' && typeof fn === 'function') tests.push((s) => (fn as (v: string) => unknown)(s) === true);
    else return undefined;
  }
  return (value) => {
    if (typeof value !== 'string') return false;
    for (const test of tests) if (!test(value)) return false;
    return true;
  };
}

/**
 * A check compiled from a zod schema made of objects (stripping unknown keys, no catch-all, no checks of
 * their own), arrays, optionals and strings with regexes or refinements: what the SOAP entities' schemas
 * are made of. Undefined for a schema holding anything else (a transform, a number, a union…), which zod
 * then validates alone. It accepts only what zod accepts with an output equal to the value given: plain
 * objects holding only the schema's keys, arrays, strings; anything it refuses goes to zod.
 */
function compile(schema: unknown): FastCheck | undefined {
  const def = (schema as SchemaInternals)._zod?.def;
  if (!def) return undefined;
  switch (def.type) {
    case 'string':
      return stringCheck(def.checks);
    case 'optional': {
      const inner = compile(def['innerType']);
      return inner && ((value) => value === undefined || inner(value));
    }
    case 'array': {
      if (def.checks?.length) return undefined;
      const element = compile(def['element']);
      if (!element) return undefined;
      return (value) => {
        if (!Array.isArray(value)) return false;
        for (const item of value) if (!element(item)) return false;
        return true;
      };
    }
    case 'object': {
      if (def.checks?.length || def['catchall'] !== undefined) return undefined;
      const fields = new Map<string, FastCheck>();
      for (const [key, field] of Object.entries(def['shape'] as Record<string, unknown>)) {
        const check = compile(field);
        if (!check) return undefined;
        fields.set(key, check);
      }
      return (value) => {
        if (!isPlainObject(value)) return false;
        for (const key in value) if (!fields.has(key)) return false;
        for (const [key, check] of fields) if (!check(value[key])) return false;
        return true;
      };
    }
    default:
      return undefined;
  }
}

const fastChecks = new WeakMap<object, FastCheck | null>();

/**
 * The compiled check of a schema (made once), or undefined when the schema holds parts it does not
 * compile. zod stays the source of truth: a value the check accepts is one zod accepts and outputs
 * unchanged (a differential spec holds the two together); a value it refuses is parsed by zod, whose
 * issues name the entity and field of the Fault.
 */
export function fastCheckOf(schema: z.ZodType): FastCheck | undefined {
  let check = fastChecks.get(schema);
  if (check === undefined) {
    check = compile(schema) ?? null;
    fastChecks.set(schema, check);
  }
  return check ?? undefined;
}

/**
 * Validates every entity of a batch before anything is written: the first invalid one refuses the whole
 * batch, naming its position, its id and the field (the spec applies a batch whole or not at all). An
 * entity the schema's compiled check accepts is its own output (zod would copy it unchanged); any other
 * is parsed by zod (decision 65). `compiled: false`: zod alone (what the differential spec compares with).
 * `offset`: where `entities` starts in its batch (a chunk of it), for the Fault to name the position in the batch.
 */
export function validateBatch<S extends z.ZodType>(
  list: string,
  schema: S,
  entities: readonly unknown[],
  options: { compiled?: boolean; offset?: number } = {},
): z.infer<S>[] {
  const valid: z.infer<S>[] = [];
  const fast = options.compiled === false ? undefined : fastCheckOf(schema);
  const offset = options.offset ?? 0;
  entities.forEach((entity, index) => {
    if (fast?.(entity)) {
      valid.push(entity as z.infer<S>);
      return;
    }
    const result = schema.safeParse(entity);
    if (!result.success) {
      const rawId = valueAt(entity, ['id']);
      const id = typeof rawId === 'string' && rawId.trim() !== '' ? rawId : undefined;
      throw new InvalidEntityError(
        list,
        offset + index,
        id,
        result.error.issues.map((i) => problemOf(entity, i)),
      );
    }
    valid.push(result.data);
  });
  return valid;
}
