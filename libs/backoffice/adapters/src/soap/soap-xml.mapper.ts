import { escapeXml } from './soap-reply';
import { isScalar, soapTypes, type SoapField } from './soap-types';

/**
 * An item of an `*_Update`'s list that the parser already built into its entity (parseXmlTree with
 * `entityListOf`): exactly what xmlToEntity would have made of its tree, returned by it as it is.
 */
export class MappedEntity {
  constructor(readonly entity: unknown) {}
}

/** What fast-xml-parser gives for an element: text ('' when empty), an object of children, or an array when repeated. */
export type XmlNode = string | MappedEntity | { [name: string]: XmlNode } | XmlNode[];

const isElementObject = (node: unknown): node is Record<string, XmlNode> =>
  typeof node === 'object' && node !== null && !Array.isArray(node);

const asList = (node: XmlNode | undefined): XmlNode[] => (node === undefined ? [] : Array.isArray(node) ? node : [node]);

function mapField(field: SoapField, node: XmlNode): unknown {
  // `<invoiceitem/>` repeated in place: every occurrence is an entry, an empty one an empty entity.
  if (field.repeated) return asList(node).map((item) => mapValue(field.type, item));
  if (field.list) {
    // `<variations/>` is an empty list; `<variations><variation>…</variation></variations>` a list of one.
    if (typeof node === 'string' && node.trim() === '') return [];
    if (!isElementObject(node)) return node;
    return asList(node[field.list]).map((item) => mapValue(field.type, item));
  }
  if (!isScalar(field.type) && typeof node === 'string' && node.trim() === '') return undefined;
  return mapValue(field.type, node);
}

function mapValue(type: string, node: XmlNode): unknown {
  if (isScalar(type)) return node;
  return xmlToEntity(type, node);
}

/**
 * Turns one parsed element into the JSON shape of its type: known child elements only (unknown ones are
 * dropped, as the zod schemas would), lists as arrays, scalars left as the strings the XML held.
 * Anything of the wrong kind is passed through unchanged so that validation names the field.
 */
export function xmlToEntity(type: string, node: XmlNode | undefined): unknown {
  if (node instanceof MappedEntity) return node.entity;
  const fields = soapTypes[type];
  if (!fields) throw new Error(`no SOAP type ${type}`);
  if (node === undefined || (typeof node === 'string' && node.trim() === '')) return {};
  if (!isElementObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const child = node[field.name];
    if (child === undefined) continue;
    const value = mapField(field, child);
    if (value !== undefined) out[field.name] = value;
  }
  return out;
}

/** The repeated `item` children of a list element (`<products><product/>…</products>`), each mapped to `type`. */
export function xmlListToEntities(type: string, item: string, node: XmlNode | undefined): unknown[] {
  if (node === undefined || (typeof node === 'string' && node.trim() === '')) return [];
  if (!isElementObject(node)) return [node];
  return asList(node[item]).map((one) => xmlToEntity(type, one));
}

const scalarXml = (value: unknown): string =>
  escapeXml(typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '');

function valueXml(type: string, value: unknown): string {
  return isScalar(type) ? scalarXml(value) : entityToXml(type, value);
}

/**
 * The reverse of xmlToEntity: the child elements of one entity in its type's order (what the XSD's
 * sequence requires), lists wrapped, absent fields left out, text escaped. Un-prefixed: a reply puts them
 * in the service namespace with a default xmlns.
 */
export function entityToXml(type: string, value: unknown): string {
  const fields = soapTypes[type];
  if (!fields) throw new Error(`no SOAP type ${type}`);
  if (typeof value !== 'object' || value === null) return '';
  const entity = value as Record<string, unknown>;
  let xml = '';
  for (const field of fields) {
    const child = entity[field.name];
    if (child === undefined || child === null) continue;
    if (field.repeated) {
      for (const item of Array.isArray(child) ? child : [child]) xml += `<${field.name}>${valueXml(field.type, item)}</${field.name}>`;
    } else if (field.list) {
      const items = Array.isArray(child) ? child : [child];
      xml += `<${field.name}>${items.map((item) => `<${field.list}>${valueXml(field.type, item)}</${field.list}>`).join('')}</${field.name}>`;
    } else {
      xml += `<${field.name}>${valueXml(field.type, child)}</${field.name}>`;
    }
  }
  return xml;
}
