import { SoapProductSchema, SoapSizeSchema, UpsertReceivedEvents } from '@commerce/erp-contracts';
import { InvalidEntityError } from './backoffice.errors';
import { fastCheckOf, validateBatch } from './entity-batch.validation';

// The compiled check beside zod (decision 65): zod is the source of truth, so whatever the check accepts
// zod must accept with the very same output, and a batch must be answered exactly as zod alone answers it.

const ref = (id: string) => ({ id, description: `${id} described` });

/** A product with every field of the schema filled, lists of several. */
function fullProduct(n: number): Record<string, unknown> {
  return {
    id: `P-${n}`,
    status: 'active',
    sku: `SKU-${n}`,
    description: `Product ${n} & <friends> "quoted" ünïcödé`,
    folder: ref('F1'),
    brand: ref('B1'),
    collection: ref('C1'),
    harmcode: ref('H1'),
    countryoforigin: 'SE',
    weight: { value: '1.5', unit: 'kg' },
    variations: [1, 2].map((v) => ({
      id: `P-${n}-${v}`,
      stockid: `S-${v}`,
      description: `Variant ${v}`,
      sku: `SKU-${n}-${v}`,
      status: 'active',
      sizetable: ref('ST1'),
      sizes: ['S', 'M'].map((size) => ({
        id: size,
        qty: '12',
        preorder: '0',
        description: size,
        comment: '',
        sku: `SKU-${n}-${v}-${size}`,
        ean: '7300000000000',
        warehouseitems: [{ id: 'W1', qty: '3', cog: '1.00' }, { id: 'W2' }],
      })),
      displays: [
        {
          store: 'web',
          categories: [ref('CAT1'), ref('CAT2')],
          categoriesremove: [ref('CAT3')],
          markets: [ref('EU')],
          marketsremove: [],
          minimumorderamount: '1',
          orderdenominator: '2',
        },
      ],
      cog: '10.00',
    })),
    media: [{ id: 'M1', image: 'https://x/y.jpg', variation: ref(`P-${n}-1`) }, {}],
    metadata: {
      storemeta: {
        shortdescription: 's',
        description: 'd',
        metatitle: 't',
        metakeywords: 'k',
        metadescription: 'm',
        taxgroup: 'g',
        store: 'web',
      },
    },
    comment: 'c',
  };
}

type Path = Array<string | number>;

/** Every path to a value in a JSON tree (the root excluded). */
function pathsOf(value: unknown, at: Path = []): Path[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => [[...at, i], ...pathsOf(item, [...at, i])]);
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([key, item]) => [[...at, key], ...pathsOf(item, [...at, key])]);
  return [];
}

function withAt(root: unknown, path: Path, change: (parent: Record<string | number, unknown>, key: string | number) => void): unknown {
  // A JSON copy (structuredClone would make objects of another realm than the test's, which the check leaves to zod).
  const copy = JSON.parse(JSON.stringify(root)) as unknown;
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  change(parent, path[path.length - 1]!);
  return copy;
}

const REPLACEMENTS: unknown[] = [
  '',
  '   ',
  'x',
  '-1',
  '1.234',
  'eur',
  5,
  0,
  true,
  null,
  undefined,
  [],
  ['a'],
  {},
  { id: 'Z' },
  [{ id: 'Z' }],
];

/** A valid product and what goes wrong with it: every value replaced by values of every kind, or removed. */
function mutants(product: Record<string, unknown>): unknown[] {
  const out: unknown[] = [product];
  for (const path of pathsOf(product)) {
    out.push(withAt(product, path, (parent, key) => (Array.isArray(parent) ? parent.splice(key as number, 1) : delete parent[key])));
    for (const replacement of REPLACEMENTS) out.push(withAt(product, path, (parent, key) => (parent[key] = replacement)));
  }
  for (const replacement of REPLACEMENTS) out.push(replacement);
  return out;
}

function outcome(run: () => unknown): unknown {
  try {
    return { valid: run() };
  } catch (error) {
    if (error instanceof InvalidEntityError) return { refused: error.message, error: { ...error } };
    throw error;
  }
}

describe('validateBatch: the compiled check and zod', () => {
  const check = fastCheckOf(SoapProductSchema)!;
  const corpus = [fullProduct(1), { id: 'P-min' }, { id: 'P-2', variations: [] }];
  const all = corpus.flatMap(mutants);

  it('compiles the product schema (and the size schema); a schema with transforms is left to zod', () => {
    expect(fastCheckOf(SoapProductSchema)).toBeDefined();
    expect(fastCheckOf(SoapSizeSchema)).toBeDefined();
    // The account's buyers carry booleans and whole numbers (transforms): zod alone.
    expect(fastCheckOf(UpsertReceivedEvents.account.entitySchema)).toBeUndefined();
    expect(all.length).toBeGreaterThan(2000);
  });

  it('accepts what zod accepts unchanged, and only that: a value zod accepts is refused only when zod changes it', () => {
    let accepted = 0;
    let changedByZod = 0;
    for (const entity of all) {
      const fast = check(entity);
      const zod = SoapProductSchema.safeParse(entity);
      if (fast) {
        accepted++;
        expect({ entity, zod: zod.success }).toEqual({ entity, zod: true });
        expect(zod.data).toStrictEqual(entity);
      } else if (zod.success) {
        // Keys the schema does not know, which zod drops: the entity goes to zod, which outputs its copy.
        changedByZod++;
        expect(zod.data).not.toStrictEqual(entity);
      }
    }
    // Every kind is well represented.
    expect(accepted).toBeGreaterThan(100);
    expect(changedByZod).toBeGreaterThan(5);
    expect(all.length - accepted - changedByZod).toBeGreaterThan(1000);
  });

  it('leaves keys the schema does not know to zod (which drops them)', () => {
    const extra = { ...fullProduct(3), unknown: 'x' };
    expect(check(extra)).toBe(false);
    expect(validateBatch('products', SoapProductSchema, [extra])).toEqual([fullProduct(3)]);
  });

  it('answers every batch as zod alone did: the same entities, or the same Fault naming the entity and field', () => {
    for (const entity of all) {
      const batch = [fullProduct(10), entity, fullProduct(11)];
      const compiled = outcome(() => validateBatch('products', SoapProductSchema, batch));
      const zodAlone = outcome(() => validateBatch('products', SoapProductSchema, batch, { compiled: false }));
      expect(compiled).toStrictEqual(zodAlone);
    }
  });
});
