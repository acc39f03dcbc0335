import { MalformedRequestError } from '@commerce/backoffice-core';
import type { XmlNode } from './soap-xml.mapper';
import { parseXmlTree, parseXmlTreeSteps, type BatchSink, type EntityListOf } from './xml-tree';
import { DEFAULT_XML_LIMITS, type XmlLimits } from './xml-prescan';

export const SOAP11_ENVELOPE_NS = 'http://schemas.xmlsoap.org/soap/envelope/';

export interface SoapRequestBody {
  /** Local name of the first child of Body, e.g. `products_Update`. */
  operation: string;
  payload: XmlNode;
}

const isElementObject = (node: unknown): node is Record<string, XmlNode> =>
  typeof node === 'object' && node !== null && !Array.isArray(node);

/**
 * Parses a SOAP 1.1 request and finds its operation element; MalformedRequestError for anything else.
 * With `entityListOf` (updateListOf), an `*_Update`'s items are built into their entities as they are
 * parsed (see parseXmlTree).
 */
export function parseSoapEnvelope(xml: string, limits: XmlLimits = DEFAULT_XML_LIMITS, entityListOf?: EntityListOf): SoapRequestBody {
  // SOAP 1.1 forbids a DTD in a message, and refusing it outright rules out entity-expansion attacks:
  // parseXmlTree refuses any declaration and defines no entity (decision 52), and enforces the limits.
  return envelopeOf(parseXmlTree(bodyText(xml), limits, entityListOf));
}

/**
 * parseSoapEnvelope as a generator that pauses between the sink's slices of an `*_Update`'s entities
 * (decision 91; parseXmlTreeSteps). An irregular batch is not parsed again here: it throws what
 * isIrregularBatch recognises, for the caller to give up what it was handed and parse again.
 */
export function* parseSoapEnvelopeSteps(
  xml: string,
  limits: XmlLimits,
  entityListOf: EntityListOf,
  sink: BatchSink,
): Generator<void, SoapRequestBody> {
  return envelopeOf(yield* parseXmlTreeSteps(bodyText(xml), limits, entityListOf, sink));
}

/** The body as the parser reads it: whole, since an XML declaration must open it (the parser skips a byte order mark). */
function bodyText(xml: string): string {
  if (/^\uFEFF?\s*$/.test(xml)) throw new MalformedRequestError('empty request body: expected a SOAP envelope');
  return xml;
}

/** The operation element of a parsed SOAP 1.1 request; MalformedRequestError for anything else. */
function envelopeOf(doc: Record<string, XmlNode>): SoapRequestBody {
  const envelope = isElementObject(doc) ? doc['Envelope'] : undefined;
  if (!isElementObject(envelope) || Object.keys(doc as object).length !== 1)
    throw new MalformedRequestError('not a SOAP envelope: the root element must be Envelope');
  const body = envelope['Body'];
  if (!isElementObject(body)) throw new MalformedRequestError('not a SOAP envelope: Envelope has no Body with an operation element');
  const [operation, ...others] = Object.keys(body);
  if (!operation) throw new MalformedRequestError('the SOAP Body holds no operation element');
  const payload = body[operation];
  if (others.length > 0 || Array.isArray(payload) || payload === undefined)
    throw new MalformedRequestError('the SOAP Body must hold exactly one operation element');
  return { operation, payload };
}
