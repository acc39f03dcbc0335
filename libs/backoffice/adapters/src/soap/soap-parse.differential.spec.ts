import { UPSERT_INTAKES, validateBatch } from '@commerce/backoffice-core';
import { UpsertReceivedEvents } from '@commerce/erp-contracts';
import { soapRequest } from '../testing/soap-request';
import { checkSoapBytes, DEFAULT_BODY_LIMITS, type SoapBodyLimits } from './soap-body.reader';
import { parseSoapEnvelope } from './soap-envelope';
import { operationOfElement, UPDATE_OPERATIONS, updateHandler, updateListOf, type UpdateOperation } from './soap-operations';
import { faultOf } from './soap-reply';
import { isScalar, soapTypes, type SoapField } from './soap-types';
import { MappedEntity, type XmlNode } from './soap-xml.mapper';
import type { XmlLimits } from './xml-prescan';

// Decision 74: the endpoint builds an *_Update's items into entities as it parses (parseSoapEnvelope with
// updateListOf) instead of parsing a tree and mapping it (the path before, kept and used here as the
// oracle). On a corpus generated from soapTypes for every *_Update (every field kind, blank and
// self-closed elements, prefixes, references, CDATA, comments, and the shapes the mapper passes through
// for validation to name: a field repeated, a text field holding elements, text beside elements, strays),
// and on broken and hostile variants of it, both give the same entities, the same Faults and the same
// refusals, whatever the chunking the body arrives in (1 byte, random, 64 kB).

/** A linear congruential generator: the same corpus on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => (a = (Math.imul(a, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const TEXTS = [
  'abc',
  ' 12 ',
  '',
  '  ',
  '&amp;x&lt;y&gt;',
  '&#65;&#x42;c',
  'a\r\nb\rc',
  'ü€😀',
  '<![CDATA[ raw <b> & ]]>',
  '7',
  'true',
  '-1.5',
];

interface Shape {
  /** Probability of each irregular shape at each place it can occur. */
  irregular: number;
  prefix: string;
}

function generator(rnd: () => number, shape: Shape) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const chance = (p: number): boolean => rnd() < p;
  const tag = (name: string): string => (shape.prefix && chance(0.7) ? `${shape.prefix}:${name}` : name);
  const element = (name: string, inner: string): string => {
    const t = tag(name);
    if (inner === '' && chance(0.3)) return `<${t}/>`;
    return `<${t}>${inner}</${t}>`;
  };
  const noise = (): string => (chance(shape.irregular) ? pick([' ', '\n  ', '<!-- note -->', '<zzz><a>1</a>t</zzz>']) : '');
  const stray = (): string => (chance(shape.irregular) ? element(pick(['zzz', 'extra', 'id']), pick(['', 'x', '<q>1</q>'])) : '');

  function scalar(): string {
    if (chance(shape.irregular)) return pick(['<x>1</x>', 'a<x/>b', '<x><y>2</y></x>']);
    return pick(TEXTS);
  }

  function value(type: string, depth: number): string {
    if (isScalar(type)) return scalar();
    if (depth > 3 || chance(0.08)) return pick(['', '  ', chance(shape.irregular) ? 'text' : '']);
    return entity(type, depth + 1);
  }

  function field(f: SoapField, depth: number): string {
    if (f.repeated) {
      let out = '';
      for (let k = Math.floor(rnd() * 3); k >= 0; k--) out += element(f.name, value(f.type, depth));
      return out;
    }
    if (f.list) {
      if (chance(0.1)) return element(f.name, pick(['', ' ', chance(shape.irregular) ? 'text' : '']));
      let items = '';
      for (let k = Math.floor(rnd() * 3); k >= 0; k--) items += noise() + element(f.list, value(f.type, depth));
      return element(f.name, items + stray());
    }
    const one = element(f.name, value(f.type, depth));
    // The same field twice: the tree holds an array, which the mapper passes through.
    return chance(shape.irregular / 2) ? one + element(f.name, value(f.type, depth)) : one;
  }

  function entity(type: string, depth = 0): string {
    const fields = soapTypes[type]!;
    let out = chance(shape.irregular) ? pick(['lead text', ' ', '&amp;']) : '';
    for (const f of fields) {
      if (!f.required && chance(0.35)) continue;
      if (f.required && chance(0.05 + shape.irregular / 4)) continue;
      out += noise() + field(f, depth);
    }
    return out + stray();
  }

  function batch(op: UpdateOperation, items: number): string {
    let inner = '';
    for (let k = 0; k < items; k++) inner += noise() + element(op.item, chance(0.05) ? pick(['', ' ', 'x']) : entity(op.type));
    if (chance(shape.irregular / 3)) inner += element('stray', '1');
    const list = element(op.list, inner);
    return chance(shape.irregular / 4) ? list + list : list;
  }

  return { batch };
}

const LOGIN = { username: 'erp', password: 'pw' };
const limitsWith = (xml: Partial<XmlLimits> = {}): SoapBodyLimits => ({
  ...DEFAULT_BODY_LIMITS,
  xml: { ...DEFAULT_BODY_LIMITS.xml, ...xml },
});

/** Batches whose items the parser built straight into entities (the others fell back to the tree). */
let builtWhileParsing = 0;

/** What the endpoint makes of a body after reading it: the entities handed to the store and their validation, or the Fault. */
async function outcome(text: string, limits: SoapBodyLimits, streamed: boolean): Promise<string> {
  try {
    const { operation: element, payload } = parseSoapEnvelope(text, limits.xml, streamed ? updateListOf : undefined);
    const spec = operationOfElement(element);
    const op = UPDATE_OPERATIONS.find((u) => u.name === spec.name)!;
    const list = (payload as Record<string, XmlNode>)[op.list];
    const first = typeof list === 'object' && !Array.isArray(list) && !(list instanceof MappedEntity) ? list[op.item] : undefined;
    if ((Array.isArray(first) ? first[0] : first) instanceof MappedEntity) builtWhileParsing++;
    let entities: unknown[] = [];
    const handler = updateHandler({
      ...op,
      receive: async (received) => {
        entities = received;
      },
    });
    const { login: _login, ...parameters } = payload as Record<string, XmlNode>;
    await handler(parameters, { requestId: 'r', username: 'erp' });
    const intake: { list: string; input?: Parameters<typeof validateBatch>[1] } = UPSERT_INTAKES[op.entity];
    let validation = 'valid';
    try {
      validateBatch(intake.list, intake.input ?? UpsertReceivedEvents[op.entity].entitySchema, entities);
    } catch (error) {
      validation = JSON.stringify(faultOf(error));
    }
    return JSON.stringify({ entities, validation });
  } catch (error) {
    return `refused: ${JSON.stringify(faultOf(error))}`;
  }
}

/** The body as the reader takes it in `chunkSize`-byte chunks (0: random sizes), then both parses. */
async function both(xml: string, limits: SoapBodyLimits, chunkSize: number, rnd: () => number): Promise<[string, string]> {
  const bytes = Buffer.from(xml, 'utf8');
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = chunkSize > 0 ? chunkSize : 1 + Math.floor(rnd() * 300);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  let text: string;
  try {
    text = checkSoapBytes(chunks, limits).text;
  } catch (error) {
    const refused = `refused while streaming: ${JSON.stringify(faultOf(error))}`;
    return [refused, refused];
  }
  expect(text).toBe(xml);
  return [await outcome(text, limits, false), await outcome(text, limits, true)];
}

const CHUNKINGS = [1, 0, 65536];

describe('parsing an *_Update straight into entities, against the tree and the mapper', () => {
  it.each(UPDATE_OPERATIONS.map((op) => [op.name, op] as const))('%s: regular batches, any chunking', async (_name, op) => {
    const rnd = random(op.name.length * 7919 + 1);
    builtWhileParsing = 0;
    for (let round = 0; round < 12; round++) {
      const { batch } = generator(rnd, { irregular: 0, prefix: round % 2 ? 'ns1' : '' });
      const xml = soapRequest(op.name, batch(op, 1 + Math.floor(rnd() * 4)), LOGIN);
      for (const chunkSize of CHUNKINGS) {
        const [tree, streamed] = await both(xml, DEFAULT_BODY_LIMITS, chunkSize, rnd);
        expect(streamed).toBe(tree);
      }
    }
    // Regular batches never fall back to the tree.
    expect(builtWhileParsing).toBe(12 * CHUNKINGS.length);
  });

  it.each(UPDATE_OPERATIONS.map((op) => [op.name, op] as const))(
    '%s: irregular shapes give the same entities and Faults',
    async (_name, op) => {
      const rnd = random(op.name.length * 104729 + 3);
      const seen = new Set<string>();
      for (let round = 0; round < 40; round++) {
        const { batch } = generator(rnd, { irregular: 0.15, prefix: round % 3 ? 'ns1' : '' });
        const xml = soapRequest(op.name, batch(op, 1 + Math.floor(rnd() * 3)), LOGIN);
        const [tree, streamed] = await both(xml, DEFAULT_BODY_LIMITS, round % 4 === 0 ? 1 : 0, rnd);
        expect(streamed).toBe(tree);
        seen.add(tree.startsWith('refused') ? 'refused' : tree.includes('"validation":"valid"') ? 'valid' : 'invalid');
      }
      // The corpus reaches both sides of validation, and some batches the handler or parser refuses.
      expect(seen.has('invalid')).toBe(true);
    },
  );

  it('broken and hostile documents: the same refusal, in any chunking', async () => {
    const rnd = random(42);
    const op = UPDATE_OPERATIONS.find((u) => u.name === 'products_Update')!;
    const { batch } = generator(rnd, { irregular: 0.05, prefix: 'ns1' });
    const base = soapRequest(op.name, batch(op, 2), LOGIN);
    const at = (k: number) => Math.floor(base.length * k);
    const LIST = /<(?:ns1:)?products>/;
    expect(base).toMatch(LIST);
    const variants: [string, Partial<XmlLimits>][] = [
      [base.slice(0, at(0.5)), {}],
      [base.slice(0, at(0.9)), {}],
      [base.replace(LIST, '<ns1:products>&bogus;'), {}],
      [base.replace(LIST, '<!DOCTYPE x [<!ENTITY a "b">]><ns1:products>'), {}],
      [base.replace(LIST, '<ns1:products><ns1:product><ns1:id>1</ns1:idd></ns1:product>'), {}],
      [base.replace(LIST, '<ns1:products><ns1:product><__proto__>1</__proto__></ns1:product>'), {}],
      [base.replace(LIST, '<ns1:products><ns1:product><constructor/></ns1:product>'), {}],
      [base.replace(LIST, '<ns1:products><ns1:product a="1" a="2"><ns1:id>1</ns1:id></ns1:product>'), {}],
      [base.replace(LIST, '<ns1:products><ns1:product><ns1:id>&#0;</ns1:id></ns1:product>'), {}],
      [base.replace(LIST, `<ns1:products><ns1:product>${'<ns1:variations>'.repeat(40)}`), {}],
      [base, { maxDepth: 7 }],
      [base, { maxElements: 40 }],
      [base, { maxNameLength: 8 }],
      [base.replace('</SOAP-ENV:Envelope>', '</SOAP-ENV:Envelope><again/>'), {}],
    ];
    for (const [xml, limits] of variants)
      for (const chunkSize of CHUNKINGS) {
        const [tree, streamed] = await both(xml, limitsWith(limits), chunkSize, rnd);
        expect(streamed).toBe(tree);
        expect(tree).toMatch(/^refused/);
      }
  });
});
