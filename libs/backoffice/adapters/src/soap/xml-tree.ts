import { MalformedRequestError } from '@commerce/backoffice-core';
import { MappedEntity, type XmlNode } from './soap-xml.mapper';
import { isScalar, soapTypes, type SoapField } from './soap-types';
import { DEFAULT_XML_LIMITS, type XmlLimits } from './xml-prescan';
import {
  FORBIDDEN_NAMES,
  charData,
  checkNameLength,
  checkQualified,
  decodeReferences,
  detached,
  endsName,
  fail,
  isSpace,
  localName,
  nameEnd,
  normaliseLineEnds,
  prologStart,
} from './xml-lexis';

// The request parser of the SOAP endpoint (decision 52): one pass over the text with indexOf, building
// the tree the mapper reads. It replaces fast-xml-parser's validator + parser (two passes, ~15× slower
// on a 6.6 MB products_Update batch) and keeps its output shape for the options the endpoint used
// (namespace prefixes removed, attributes ignored, text kept as trimmed strings, a repeated element an
// array, an element's text beside children under '#text'). With the body reader, it is a strict XML 1.0
// (fifth edition) well-formedness check, held to the W3C XML Conformance Test Suite (xml-conformance.spec.ts,
// decision 129): the reader refuses what is wrong with the characters themselves (bytes that are not UTF-8,
// the control characters and U+FFFE/U+FFFF that XML's Char excludes: soap-body.reader.ts, XmlPrescan), and
// this parser the grammar: the XML declaration (first, well-formed, UTF-8), matched tags, one root, names
// made of XML's name characters, quoted unrepeated attributes, comments without "--", character data
// without "]]>", processing instructions with a target, CDATA; only the five predefined entities and
// character references. Its departures, on purpose: no DTD or other declaration (a SOAP message has none),
// and names follow Namespaces in XML (a colon only between a non-empty prefix and local part; prefixes are
// not resolved, elements are read by local name). It enforces the front door's caps on depth, element count,
// attributes an element and name length as it goes (decision 65), as a second line behind the body reader's
// streaming pre-scan, which refuses them as the bytes arrive; the reader's byte caps bound what it is given.
// For an `*_Update`, the items of its list are built straight into entities instead of the tree (decision
// 74; see Mode).

/**
 * What an open element becomes. Generic: a node of the tree. Below the list element of an `*_Update`
 * (`Envelope/Body/products_Update/products`), its items are built straight into the entities the mapper
 * (soap-xml.mapper.ts) would have made of their tree, driven by the same `soapTypes`: Entity (a complex
 * type's fields), List (a list wrapper's items), Scalar (a field's text), Ignored (an element the type does
 * not have, dropped as the mapper drops it). Batch is that list element itself: a tree node whose items are
 * MappedEntity values.
 */
const enum Mode {
  Generic,
  Batch,
  Entity,
  List,
  Scalar,
  Ignored,
}

/** A complex type's fields, for building its entities as the elements arrive. */
interface TypeInfo {
  fields: SoapField[];
  /** Field index by local name. */
  index: Map<string, number>;
  /** Field k's name as a document last wrote it. */
  written: (Guess | undefined)[];
  /** The name as written of the items of list field k, last seen. */
  items: (Guess | undefined)[];
}

/** A name as a document wrote it (prefix included), checked, and its local part. */
interface Guess {
  name: string;
  local: string;
  /** Under an Entity: the field's index, and whether the field holds text (a scalar that is not a list). */
  field: number;
  text: boolean;
}

const typeInfos = new Map<string, TypeInfo>();
function typeInfo(type: string): TypeInfo {
  let info = typeInfos.get(type);
  if (!info) {
    const fields = soapTypes[type];
    if (!fields) throw new Error(`no SOAP type ${type}`);
    info = {
      fields,
      index: new Map(fields.map((field, k) => [field.name, k])),
      written: new Array<Guess | undefined>(fields.length).fill(undefined),
      items: new Array<Guess | undefined>(fields.length).fill(undefined),
    };
    typeInfos.set(type, info);
  }
  return info;
}

/** The list element and item type of an `*_Update`'s Body element (its local name), or undefined. */
export type EntityListOf = (operationElement: string) => { list: string; item: string; type: string } | undefined;

/**
 * Thrown inside the typed build where the mapper would pass a piece of the tree through unchanged (a field
 * repeated that should not be, a text field holding elements): the document is then parsed again into the
 * tree, and the mapper makes exactly what it always made. Only badly shaped batches take this path.
 */
const IRREGULAR = new Error('irregular batch shape');

/** A slot for a complex field that was present but blank: the mapper leaves it out. */
const SKIPPED = Symbol('skipped');

const isBlank = (text: string): boolean => text.trim() === '';

interface Open {
  /** The name as written (prefix included), which the end tag must repeat. */
  name: string;
  local: string;
  children: Record<string, XmlNode> | undefined;
  text: string;
  mode: Mode;
  /** Entity: its type; List and Batch: the item's type (undefined for a scalar item). */
  info: TypeInfo | undefined;
  /** Under an Entity: the field's index in the parent's type. */
  field: number;
  /** Entity: the field index of the last child it holds of a known field (-1: none yet). */
  last: number;
  /** Entity: the value of each field by index; List: the items. */
  slots: unknown[] | undefined;
  /** Entity, List, Scalar: an element opened inside. */
  hasChildren: boolean;
  /** List and Batch: the item's name. */
  item: string;
}

const open = (name: string, local: string): Open => ({
  name,
  local,
  children: undefined,
  text: '',
  mode: Mode.Generic,
  info: undefined,
  field: -1,
  last: -1,
  slots: undefined,
  hasChildren: false,
  item: '',
});

/** The element just opened under `parent`: what it is in the typed build (Generic outside it). */
function placeChild(parent: Open, child: Open, depth: number, stack: readonly Open[], entityListOf: EntityListOf | undefined): void {
  switch (parent.mode) {
    case Mode.Generic: {
      // Envelope/Body/<operation>/<list>: the list element of an *_Update.
      if (depth !== 3 || !entityListOf || stack[0]!.local !== 'Envelope' || stack[1]!.local !== 'Body') return;
      const list = entityListOf(stack[2]!.local);
      if (!list || child.local !== list.list) return;
      child.mode = Mode.Batch;
      child.item = list.item;
      child.info = typeInfo(list.type);
      return;
    }
    case Mode.Batch:
      if (child.local !== parent.item) return;
      child.mode = Mode.Entity;
      child.info = parent.info;
      return;
    case Mode.Entity: {
      parent.hasChildren = true;
      const info = parent.info!;
      const k = info.index.get(child.local);
      if (k === undefined) {
        child.mode = Mode.Ignored;
        return;
      }
      const field = info.fields[k]!;
      child.field = k;
      parent.last = k;
      if (field.list) {
        child.mode = Mode.List;
        child.item = field.list;
        child.info = isScalar(field.type) ? undefined : typeInfo(field.type);
      } else if (isScalar(field.type)) child.mode = Mode.Scalar;
      else {
        child.mode = Mode.Entity;
        child.info = typeInfo(field.type);
      }
      return;
    }
    case Mode.List:
      parent.hasChildren = true;
      if (child.local !== parent.item) child.mode = Mode.Ignored;
      else if (parent.info) {
        child.mode = Mode.Entity;
        child.info = parent.info;
      } else child.mode = Mode.Scalar;
      return;
    case Mode.Scalar:
      // A text field holding elements: the mapper passes that tree through for validation to name.
      throw IRREGULAR;
    case Mode.Ignored:
      child.mode = Mode.Ignored;
      return;
  }
}

/** The value of a closed element in the typed build (what the mapper would have made of its tree, before its field's rules). */
function typedValue(element: Open): unknown {
  switch (element.mode) {
    case Mode.Entity: {
      if (!element.hasChildren) return element.text;
      const { fields } = element.info!;
      const slots = element.slots;
      const out: Record<string, unknown> = {};
      if (slots)
        for (let k = 0; k < fields.length; k++) {
          const value = slots[k];
          if (value !== undefined && value !== SKIPPED) out[fields[k]!.name] = value;
        }
      return out;
    }
    case Mode.List:
      return element.hasChildren ? (element.slots ?? []) : element.text;
    default:
      return element.text;
  }
}

/** An item of a list, of a repeated field or of the batch: blank is an empty entity, other text passes through. */
const itemOf = (element: Open, value: unknown): unknown =>
  element.mode === Mode.Entity && typeof value === 'string' && isBlank(value) ? {} : value;

/** Where `</name>` starts when it follows the text from `from` at once (an element with no child), else -1. */
function leafEnd(xml: string, from: number, name: string): number {
  const end = xml.charCodeAt(from) === 0x3c ? from : xml.indexOf('<', from);
  if (end === -1 || xml.charCodeAt(end + 1) !== 0x2f || xml.charCodeAt(end + 2 + name.length) !== 0x3e || !xml.startsWith(name, end + 2))
    return -1;
  return end;
}

/** A text field's value into its entity: a repeated one is a list, a second one of another is the tree's business. */
function putText(entity: Open, k: number, text: string): void {
  const slots = (entity.slots ??= new Array<unknown>(entity.info!.fields.length));
  if (entity.info!.fields[k]!.repeated) ((slots[k] ??= []) as unknown[]).push(text);
  else if (slots[k] !== undefined) throw IRREGULAR;
  else slots[k] = text;
}

/** Keeps the name an element of the typed build was written with, for the next entity of its type to be compared against. */
function remember(parent: Open, element: Open, stack: readonly Open[]): void {
  const name = detached(element.name);
  if (parent.mode === Mode.Entity)
    parent.info!.written[element.field] = { name, local: element.local, field: element.field, text: element.mode === Mode.Scalar };
  else stack[stack.length - 2]!.info!.items[parent.field] = { name, local: element.local, field: -1, text: false };
}

/** Hands a closed element's value to its parent (and a batch's entity to the sink, when there is one). */
function closeInto(parent: Open, element: Open, sink?: BatchSink): void {
  switch (parent.mode) {
    case Mode.Generic:
      addChild(parent, element.local, valueOf(element));
      return;
    case Mode.Batch: {
      if (element.mode !== Mode.Entity) return addChild(parent, element.local, valueOf(element));
      const entity = itemOf(element, typedValue(element));
      addChild(parent, element.local, new MappedEntity(entity));
      sink?.items.push(entity);
      return;
    }
    case Mode.Entity: {
      if (element.mode === Mode.Ignored) return;
      const k = element.field;
      const field = parent.info!.fields[k]!;
      const slots = (parent.slots ??= new Array<unknown>(parent.info!.fields.length));
      const value = typedValue(element);
      if (element.mode === Mode.Scalar) return putText(parent, k, value as string);
      if (field.repeated) {
        ((slots[k] ??= []) as unknown[]).push(itemOf(element, value));
        return;
      }
      // The same field twice: the tree holds an array there, which the mapper passes through.
      if (slots[k] !== undefined) throw IRREGULAR;
      if (typeof value !== 'string') slots[k] = value;
      else if (element.mode === Mode.List) slots[k] = isBlank(value) ? [] : value;
      else slots[k] = isBlank(value) ? SKIPPED : value;
      return;
    }
    case Mode.List:
      if (element.mode !== Mode.Ignored) (parent.slots ??= []).push(itemOf(element, typedValue(element)));
      return;
    default:
      return;
  }
}

/** The value of a closed element: its text, or its children (with any text under '#text'). */
function valueOf(element: Open): XmlNode {
  if (!element.children) return element.text;
  if (element.text !== '') element.children['#text'] = element.text;
  return element.children;
}

function addChild(parent: Open, local: string, value: XmlNode): void {
  const children = (parent.children ??= {});
  // Own keys only: a child named toString or hasOwnProperty is a new key, not Object.prototype's.
  const existing = Object.hasOwn(children, local) ? children[local] : undefined;
  // An element's own value is never an array: an array here is the list of a repeated element.
  if (existing === undefined) children[local] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else children[local] = [existing, value];
}

/**
 * Parses a whole XML document into `{ rootLocalName: value }` (fast-xml-parser's shape for the endpoint's
 * options); MalformedRequestError naming the first thing that is not well-formed. With `entityListOf`, the
 * items of an `*_Update`'s list element are built into their entities as they are parsed (MappedEntity
 * values, which xmlListToEntities returns as they are) instead of into the tree: the same entities, the
 * same errors, no tree of the batch and no second walk over it.
 */
export function parseXmlTree(xml: string, limits: XmlLimits = DEFAULT_XML_LIMITS, entityListOf?: EntityListOf): Record<string, XmlNode> {
  if (!entityListOf) return finish(parseXmlTreeSteps(xml, limits, undefined));
  try {
    return finish(parseXmlTreeSteps(xml, limits, entityListOf));
  } catch (error) {
    if (error !== IRREGULAR) throw error;
    return finish(parseXmlTreeSteps(xml, limits, undefined));
  }
}

/**
 * Where the parse hands a batch's entities over as they are built (decision 91): each entity of the
 * `*_Update`'s list, as the mapper would return it, is pushed to `items` as its item closes (the same value
 * the tree's MappedEntity holds), and the parse pauses (the generator yields) whenever `items` holds `size`
 * or more; the caller takes them and resumes it. `operation` is the local name of the Body's element
 * whose list was opened.
 */
export interface BatchSink {
  items: unknown[];
  size: number;
  operation?: string;
}

/** A parse run to its end: with no sink it never pauses. */
export function finish<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The typed build met a shape it leaves to the tree and the mapper: parse again without `entityListOf` (what parseXmlTree does). */
export const isIrregularBatch = (error: unknown): boolean => error === IRREGULAR;

/**
 * parseXmlTree's one pass, as a generator that pauses between a sink's slices of entities (see BatchSink);
 * without a sink it runs to its end at the first `next()`. It does not fall back on an irregular batch: it
 * throws what isIrregularBatch recognises.
 */
export function* parseXmlTreeSteps(
  xml: string,
  limits: XmlLimits,
  entityListOf: EntityListOf | undefined,
  sink?: BatchSink,
): Generator<void, Record<string, XmlNode>> {
  const state: ParseState = {
    i: prologStart(xml),
    elements: 0,
    stack: [],
    document: open('', ''),
    rootSeen: false,
    cdataEnds: xml.indexOf(']]>') !== -1,
  };
  // The loop is a plain function, not the generator's body: V8 optimises a long-running loop of a plain
  // function while it runs (on-stack replacement), not a generator's (measured ~30% slower).
  while (!parseRun(xml, limits, entityListOf, state, sink)) yield;
  return state.document.children!;
}

/** Where a paused parse stands. */
interface ParseState {
  i: number;
  elements: number;
  stack: Open[];
  document: Open;
  rootSeen: boolean;
  /** The document holds `]]>` somewhere: character data is searched for it (charData). */
  cdataEnds: boolean;
}

/** Parses from `state` on, to the end (true) or until the sink is full (false, `state` kept for the next run). */
function parseRun(
  xml: string,
  limits: XmlLimits,
  entityListOf: EntityListOf | undefined,
  state: ParseState,
  sink: BatchSink | undefined,
): boolean {
  const n = xml.length;
  const { stack, document, cdataEnds } = state;
  let { elements, rootSeen, i } = state;
  const startsAt = (token: string, at: number): boolean => xml.startsWith(token, at);
  const indexOrFail = (token: string, from: number, what: string): number => {
    const at = xml.indexOf(token, from);
    if (at === -1) fail(`the document ends inside ${what}`);
    return at;
  };

  while (i < n) {
    if (sink !== undefined && sink.items.length >= sink.size) {
      state.i = i;
      state.elements = elements;
      state.rootSeen = rootSeen;
      return false;
    }
    // Most tags follow the last one at once: no native call to find them.
    const lt = xml.charCodeAt(i) === 0x3c ? i : xml.indexOf('<', i);
    const textEnd = lt === -1 ? n : lt;
    if (textEnd > i) {
      const top = stack[stack.length - 1];
      if (top) {
        const piece = charData(xml, i, textEnd, cdataEnds).trim();
        if (piece !== '') top.text += piece;
      } else {
        for (let k = i; k < textEnd; k++) if (!isSpace(xml.charCodeAt(k))) fail('text outside the root element');
      }
    }
    if (lt === -1) break;
    const next = xml.charCodeAt(lt + 1);

    if (next === 0x2f /* / */) {
      const top = stack.pop();
      // The usual end tag repeats its start tag's name and ends at once: compared in place, no string made.
      const after = lt + 2 + (top ? top.name.length : 0);
      let gt: number;
      if (top && xml.charCodeAt(after) === 0x3e /* > */ && xml.startsWith(top.name, lt + 2)) gt = after;
      else {
        gt = indexOrFail('>', lt + 2, 'an end tag');
        let nameEnds = gt;
        while (nameEnds > lt + 2 && isSpace(xml.charCodeAt(nameEnds - 1))) nameEnds--;
        const name = xml.slice(lt + 2, nameEnds);
        if (!top) fail(`an end tag </${name}> without its start tag`);
        if (top.name !== name) fail(`the end tag </${name}> does not close <${top.name}>`);
      }
      closeInto(stack[stack.length - 1] ?? document, top!, sink);
      i = gt + 1;
      continue;
    }

    if (next === 0x21 /* ! */) {
      if (startsAt('<!--', lt)) {
        const close = indexOrFail('-->', lt + 4, 'a comment');
        // '--' only in '-->': none inside, and not '--->'.
        if (xml.indexOf('--', lt + 4) < close) fail('"--" inside a comment');
        i = close + 3;
      } else if (startsAt('<![CDATA[', lt)) {
        const close = indexOrFail(']]>', lt + 9, 'a CDATA section');
        const top = stack[stack.length - 1];
        if (!top) fail('a CDATA section outside the root element');
        top.text += normaliseLineEnds(xml.slice(lt + 9, close));
        i = close + 3;
      } else if (/^<!DOCTYPE/i.test(xml.slice(lt, lt + 9))) {
        throw new MalformedRequestError('a SOAP message must not contain a DTD');
      } else {
        throw new MalformedRequestError('a SOAP message must not contain markup declarations');
      }
      continue;
    }

    if (next === 0x3f /* ? */) {
      // `<?target?>` or `<?target data?>`; the XML declaration was read before the loop (prologStart).
      const targetEnd = nameEnd(xml, lt + 2);
      if (targetEnd === lt + 2) fail('a processing instruction without a target');
      const target = xml.slice(lt + 2, targetEnd);
      if (target.length === 3 && target.toLowerCase() === 'xml')
        fail(`<?${target} …?>: an XML declaration is written <?xml …?> and comes first in the document (the target is reserved)`);
      const close = indexOrFail('?>', targetEnd, 'a processing instruction');
      if (close !== targetEnd && !isSpace(xml.charCodeAt(targetEnd)))
        fail(`a bad character in the processing instruction target ${target}`);
      i = close + 2;
      continue;
    }

    // A start tag: its name, then attributes (checked, not kept), then '>' or '/>'.
    const parent = stack[stack.length - 1] ?? document;
    // In the typed build, a child's name as the document wrote it for the same field before: when the
    // document repeats it, it is compared in place (no string made, no lookup). Fields come in their type's
    // order, so the candidates are the fields after the last one seen. A name kept here passed every check
    // of a name when it was first read; the limits, which may differ between calls, are checked again.
    let guess: Guess | undefined;
    let end = -1;
    if (parent.mode === Mode.Entity) {
      const written = parent.info!.written;
      for (let k = parent.last + 1; k < written.length; k++) {
        const candidate = written[k];
        if (candidate !== undefined && xml.startsWith(candidate.name, lt + 1) && endsName(xml.charCodeAt(lt + 1 + candidate.name.length))) {
          guess = candidate;
          break;
        }
      }
    } else if (parent.mode === Mode.List) {
      const candidate = stack[stack.length - 2]!.info!.items[parent.field];
      if (candidate !== undefined && xml.startsWith(candidate.name, lt + 1) && endsName(xml.charCodeAt(lt + 1 + candidate.name.length)))
        guess = candidate;
    }
    let j = lt + 1;
    let name: string;
    let local: string;
    if (guess !== undefined) {
      name = guess.name;
      local = guess.local;
      j += name.length;
      if (++elements > limits.maxElements) throw new MalformedRequestError(`the request has more than ${limits.maxElements} elements`);
      if (stack.length + 1 > limits.maxDepth)
        throw new MalformedRequestError(`the request nests elements deeper than ${limits.maxDepth} levels`);
      checkNameLength(name, limits);
    } else {
      j = nameEnd(xml, lt + 1);
      if (j === lt + 1) fail('a tag without a valid name');
      if (j < n && !endsName(xml.charCodeAt(j))) fail(`a bad character in a tag name (<${xml.slice(lt + 1, j + 1)})`);
      name = xml.slice(lt + 1, j);
      if (++elements > limits.maxElements) throw new MalformedRequestError(`the request has more than ${limits.maxElements} elements`);
      if (stack.length + 1 > limits.maxDepth)
        throw new MalformedRequestError(`the request nests elements deeper than ${limits.maxDepth} levels`);
      local = localName(name, limits);
    }
    let attributes: string[] | undefined;
    let selfClosing = false;
    for (;;) {
      const spaced = j < n && isSpace(xml.charCodeAt(j));
      while (j < n && isSpace(xml.charCodeAt(j))) j++;
      if (j >= n) fail('the document ends inside a start tag');
      const c = xml.charCodeAt(j);
      if (c === 0x3e /* > */) {
        j++;
        break;
      }
      if (c === 0x2f /* / */) {
        if (xml.charCodeAt(j + 1) !== 0x3e) fail('"/" in a start tag must end it');
        selfClosing = true;
        j += 2;
        break;
      }
      if (!spaced) fail(`attributes of <${name}> must be separated by white space`);
      const nameStart = j;
      j = nameEnd(xml, j);
      if (j === nameStart) fail(`a bad attribute name in <${name}>`);
      const after = xml.charCodeAt(j);
      if (after === 0x3e || after === 0x2f) fail(`an attribute without a value in <${name}>`);
      if (!isSpace(after) && after !== 0x3d /* = */) fail(`a bad character in an attribute name in <${name}>`);
      const attribute = xml.slice(nameStart, j);
      checkNameLength(attribute, limits);
      checkQualified(attribute);
      if (FORBIDDEN_NAMES.has(attribute.slice(attribute.lastIndexOf(':') + 1)))
        throw new MalformedRequestError(`the name ${attribute.slice(attribute.lastIndexOf(':') + 1)} is not allowed in a request`);
      if ((attributes?.length ?? 0) >= limits.maxAttributes)
        throw new MalformedRequestError(`an element has more than ${limits.maxAttributes} attributes`);
      while (j < n && isSpace(xml.charCodeAt(j))) j++;
      if (xml.charCodeAt(j) !== 0x3d) fail(`the attribute ${attribute} has no value`);
      j++;
      while (j < n && isSpace(xml.charCodeAt(j))) j++;
      const quote = xml.charCodeAt(j);
      if (quote !== 0x22 && quote !== 0x27) fail(`the value of ${attribute} must be quoted`);
      const valueEnd = indexOrFail(quote === 0x22 ? '"' : "'", j + 1, 'an attribute value');
      const value = xml.slice(j + 1, valueEnd);
      if (value.indexOf('<') !== -1) fail(`"<" in the value of ${attribute}`);
      decodeReferences(value);
      if ((attributes ??= []).includes(attribute)) fail(`the attribute ${attribute} is repeated in <${name}>`);
      attributes.push(attribute);
      j = valueEnd + 1;
    }
    if (stack.length === 0) {
      if (rootSeen) fail('more than one root element');
      rootSeen = true;
    }
    if (selfClosing && parent.mode === Mode.Generic && (stack.length !== 3 || !entityListOf)) addChild(parent, local, '');
    else if (!selfClosing && guess?.text && parent.mode === Mode.Entity && (end = leafEnd(xml, j, name)) !== -1) {
      // Most of a batch: `<name>text</name>` of a known text field, handed to its entity with no frame.
      parent.hasChildren = true;
      parent.last = guess.field;
      putText(parent, guess.field, end > j ? charData(xml, j, end, cdataEnds).trim() : '');
      i = end + 3 + name.length;
      continue;
    } else {
      const element = open(name, local);
      placeChild(parent, element, stack.length, stack, entityListOf);
      if (sink !== undefined && element.mode === Mode.Batch) sink.operation ??= stack[2]!.local;
      if (guess === undefined && element.mode !== Mode.Ignored && (parent.mode === Mode.Entity || parent.mode === Mode.List))
        remember(parent, element, stack);
      if (selfClosing) closeInto(parent, element, sink);
      else if (element.mode === Mode.Scalar) {
        // Most of a batch: `<name>text</name>`, taken here in one go when its end tag follows its text
        // (the text read as the loop reads it); anything else goes round the loop.
        end = leafEnd(xml, j, name);
        if (end !== -1) {
          if (end > j) element.text = charData(xml, j, end, cdataEnds).trim();
          closeInto(parent, element);
          i = end + 3 + name.length;
          continue;
        }
        stack.push(element);
      } else stack.push(element);
    }
    i = j;
  }

  const unclosed = stack[stack.length - 1];
  if (unclosed) fail(`the document ends inside <${unclosed.name}>`);
  if (!rootSeen || !document.children) fail('no root element');
  return true;
}
