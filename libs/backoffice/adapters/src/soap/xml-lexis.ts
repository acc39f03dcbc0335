import { MalformedRequestError } from '@commerce/backoffice-core';
import type { XmlLimits } from './xml-prescan';

// The lexical layer of the SOAP request parser (xml-tree.ts, decision 129): XML 1.0's characters, names,
// references, line ends and prolog, and the local names the tree is keyed by, checked once and kept.

/** Names that would become keys of the parsed object and reach Object.prototype's machinery (also refused by the pre-scan). */
export const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
// Leading zeros are allowed in a character reference: its value, not its length, is checked (charOf).
const REFERENCE = /&(?:#x([0-9A-Fa-f]+)|#([0-9]+)|([A-Za-z_][A-Za-z0-9._-]*));|&/g;

export function fail(reason: string): never {
  throw new MalformedRequestError(`malformed XML: ${reason}`);
}

/** A character reference must name a character XML allows. */
function charOf(code: number): string {
  const allowed =
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff);
  if (!allowed) fail(`a character reference to a character XML does not allow (${code})`);
  return String.fromCodePoint(code);
}

/** Decodes the five predefined entities and character references; any other `&` is not well-formed. */
export function decodeReferences(raw: string): string {
  if (raw.indexOf('&') === -1) return raw;
  return raw.replace(REFERENCE, (whole, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    if (hex !== undefined) return charOf(parseInt(hex, 16));
    if (dec !== undefined) return charOf(parseInt(dec, 10));
    if (name !== undefined) return PREDEFINED[name] ?? fail(`an undefined entity &${name}; (a SOAP message defines none)`);
    return fail('"&" must start an entity or character reference');
  });
}

/** XML line-end handling: CR LF and a lone CR read as LF. */
export const normaliseLineEnds = (text: string): string => (text.indexOf('\r') === -1 ? text : text.replace(/\r\n?/g, '\n'));

export const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
/** Characters that end a name in a tag. */
export const endsName = (c: number): boolean => isSpace(c) || c === 0x3e /* > */ || c === 0x2f; /* / */

/** ASCII's name characters: 1 may start a name, 2 may go on one. */
const ASCII_NAME = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f /* _ */ || c === 0x3a; /* : */
  if (letter) ASCII_NAME[c] = 3;
  else if ((c >= 0x30 && c <= 0x39) || c === 0x2d /* - */ || c === 0x2e /* . */) ASCII_NAME[c] = 2;
}

/**
 * XML 1.0's NameStartChar (fifth edition), by UTF-16 code unit: a character above U+FFFF is a surrogate
 * pair, which passes by its first half (U+10000–U+EFFFF: D800–DB7F) and its second (isNameCode).
 */
function isNameStartCode(c: number): boolean {
  if (c < 0x80) return ((ASCII_NAME[c] as number) & 1) !== 0;
  return (
    (c >= 0xc0 && c <= 0xd6) ||
    (c >= 0xd8 && c <= 0xf6) ||
    (c >= 0xf8 && c <= 0x2ff) ||
    (c >= 0x370 && c <= 0x37d) ||
    (c >= 0x37f && c <= 0x1fff) ||
    c === 0x200c ||
    c === 0x200d ||
    (c >= 0x2070 && c <= 0x218f) ||
    (c >= 0x2c00 && c <= 0x2fef) ||
    (c >= 0x3001 && c <= 0xd7ff) ||
    (c >= 0xd800 && c <= 0xdb7f) ||
    (c >= 0xf900 && c <= 0xfdcf) ||
    (c >= 0xfdf0 && c <= 0xfffd)
  );
}

/** XML 1.0's NameChar (fifth edition), by UTF-16 code unit (see isNameStartCode). */
function isNameCode(c: number): boolean {
  if (c < 0x80) return ASCII_NAME[c] !== 0;
  return isNameStartCode(c) || c === 0xb7 || (c >= 0x300 && c <= 0x36f) || c === 0x203f || c === 0x2040 || (c >= 0xdc00 && c <= 0xdfff);
}

/** Where the name that starts at `from` ends (`from` itself when no name starts there). */
export function nameEnd(xml: string, from: number): number {
  const n = xml.length;
  if (from >= n || !isNameStartCode(xml.charCodeAt(from))) return from;
  let j = from + 1;
  while (j < n && isNameCode(xml.charCodeAt(j))) j++;
  return j;
}

/**
 * Namespaces in XML: a name holds at most one colon, between a non-empty prefix and a local part that
 * starts as a name does (so `:`, `a:`, `:a`, `a:b:c` and `a:-b` are refused, though XML 1.0 alone allows them).
 */
export function checkQualified(name: string): void {
  const colon = name.indexOf(':');
  if (colon === -1) return;
  if (colon === 0 || colon === name.length - 1 || name.indexOf(':', colon + 1) !== -1 || !isNameStartCode(name.charCodeAt(colon + 1)))
    fail(
      `the name ${name} is not a qualified name (prefix:local, as Namespaces in XML has it)${colon === name.length - 1 ? ': it has no local part' : ''}`,
    );
}

/**
 * The XML declaration (`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`, encoding and standalone
 * optional, in that order), where the document starts.
 */
const XML_DECLARATION =
  /<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(?:"1\.[0-9]+"|'1\.[0-9]+')(?:[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(?:"([A-Za-z][A-Za-z0-9._-]*)"|'([A-Za-z][A-Za-z0-9._-]*)'))?(?:[ \t\r\n]+standalone[ \t\r\n]*=[ \t\r\n]*(?:"(?:yes|no)"|'(?:yes|no)'))?[ \t\r\n]*\?>/y;

/** Where the document's content starts: after a byte order mark and an XML declaration, either optional. */
export function prologStart(xml: string): number {
  const at = xml.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (!xml.startsWith('<?xml', at) || isNameCode(xml.charCodeAt(at + 5))) return at;
  XML_DECLARATION.lastIndex = at;
  const declaration = XML_DECLARATION.exec(xml);
  if (!declaration)
    fail('a malformed XML declaration (it is <?xml version="1.0" encoding="UTF-8"?>, encoding and then standalone optional)');
  const encoding = declaration[1] ?? declaration[2];
  if (encoding !== undefined && encoding.toLowerCase() !== 'utf-8')
    fail(`the XML declaration names the encoding ${encoding}: a SOAP request here is UTF-8`);
  return XML_DECLARATION.lastIndex;
}

/**
 * Character data from `from` to `to`, its references decoded and line ends normalised. `]]>` may only end
 * a CDATA section: looked for only when the document holds it at all (`cdataEnds`), which a batch seldom does.
 */
export function charData(xml: string, from: number, to: number, cdataEnds: boolean): string {
  const raw = xml.slice(from, to);
  if (cdataEnds && raw.indexOf(']]>') !== -1) fail('"]]>" in text (it may only end a CDATA section)');
  return decodeReferences(normaliseLineEnds(raw));
}

/** Local names by name as written: a batch repeats a hundred-odd names hundreds of thousands of times. */
const localNames = new Map<string, string>();

/**
 * A copy of a string that holds no reference to the text it was sliced from: V8 keeps a slice of 13 or more
 * characters as a view of its parent, so a name kept past its request (the caches here) would keep that
 * request's whole document alive.
 */
export const detached = (text: string): string => JSON.parse(JSON.stringify(text)) as string;

/** A name's length in UTF-8 bytes is at most three times its UTF-16 length: count bytes only near the cap. */
export function checkNameLength(name: string, limits: XmlLimits): void {
  if (name.length * 3 <= limits.maxNameLength) return;
  if (name.length > limits.maxNameLength || Buffer.byteLength(name, 'utf8') > limits.maxNameLength)
    throw new MalformedRequestError(`an element or attribute name is longer than ${limits.maxNameLength} bytes`);
}

export function localName(name: string, limits: XmlLimits): string {
  checkNameLength(name, limits);
  const known = localNames.get(name);
  if (known !== undefined) return known;
  checkQualified(name);
  const local = name.slice(name.indexOf(':') + 1);
  if (FORBIDDEN_NAMES.has(local)) throw new MalformedRequestError(`the name ${local} is not allowed in a request`);
  // Only names that passed; bounded, since a document may hold many names (the pre-scan caps their length).
  if (localNames.size >= 10_000) localNames.clear();
  const kept = detached(local);
  localNames.set(detached(name), kept);
  return kept;
}
