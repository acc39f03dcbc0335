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

/**
 * Validates every entity of a batch before anything is written: the first invalid one refuses the whole
 * batch, naming its position, its id and the field (the spec applies a batch whole or not at all).
 */
export function validateBatch<S extends z.ZodType>(list: string, schema: S, entities: readonly unknown[]): z.infer<S>[] {
  const valid: z.infer<S>[] = [];
  entities.forEach((entity, index) => {
    const result = schema.safeParse(entity);
    if (!result.success) {
      const rawId = valueAt(entity, ['id']);
      const id = typeof rawId === 'string' && rawId.trim() !== '' ? rawId : undefined;
      throw new InvalidEntityError(
        list,
        index,
        id,
        result.error.issues.map((i) => problemOf(entity, i)),
      );
    }
    valid.push(result.data);
  });
  return valid;
}
