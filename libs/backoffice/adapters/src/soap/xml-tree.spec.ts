import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { MalformedRequestError } from '@commerce/backoffice-core';
import { soapRequest } from '../testing/soap-request';
import { entityToXml } from './soap-xml.mapper';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { updateListOf } from './soap-operations';
import { parseXmlTree } from './xml-tree';
import { DEFAULT_XML_LIMITS, type XmlLimits } from './xml-prescan';

// The parser the endpoint used before decision 52, with its options: the oracle for the tree's shape.
const oracle = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

const reasonOf = (xml: string, limits: Partial<XmlLimits> = {}): string => {
  try {
    parseXmlTree(xml, { ...DEFAULT_XML_LIMITS, ...limits });
  } catch (e) {
    if (e instanceof MalformedRequestError) return e.reason;
    throw e;
  }
  throw new Error(`accepted: ${xml}`);
};

describe('parseXmlTree (the SOAP request parser)', () => {
  it('gives the tree fast-xml-parser gave for a products_Update batch with every kind of field', () => {
    const products = Array.from({ length: 25 }, (_, p) => ({
      id: `P-${p}`,
      status: 'active',
      sku: `SK-${p}`,
      description: `Skjorta «${p}» & <Linne> Ωμέγα 北京 مرحبا`,
      brand: { id: `B-${p % 3}`, description: 'Atelier Sœur' },
      weight: { value: '1.50', unit: 'kg' },
      variations: Array.from({ length: 1 + (p % 3) }, (_, v) => ({
        id: `P-${p}-${v}`,
        description: v % 2 ? '' : `Färg ${v}`,
        sizes: Array.from({ length: p % 4 }, (_, z) => ({
          id: `P-${p}-${v}-${z}`,
          qty: String(z),
          warehouseitems: [{ id: 'w1', qty: String(z) }],
        })),
      })),
    }));
    const pricelists = [{ id: '1', currency: 'SEK', items: { product: products.map((p) => ({ id: p.id, price: '199.00' })) } }];
    for (const xml of [
      soapRequest(
        'products_Update',
        `<products>${products.map((p) => `<product>${entityToXml('Product', p)}</product>`).join('')}</products>`,
        {
          username: 'erp',
          password: 'pw',
        },
      ),
      soapRequest(
        'pricelists_Update',
        `<pricelists>${pricelists.map((p) => `<pricelist>${entityToXml('Pricelist', p)}</pricelist>`).join('')}</pricelists>`,
        { username: 'erp', password: 'pw', prefix: 'tns' },
      ),
    ]) {
      expect(XMLValidator.validate(xml)).toBe(true);
      expect(parseXmlTree(xml)).toEqual(oracle.parse(xml));
    }
  });

  it.each([
    [
      'prefixes removed, attributes and the declaration ignored',
      '<?xml version="1.0"?><s:a xmlns:s="u" s:x=\'1\'><s:b x="1">v</s:b></s:a>',
    ],
    ['empty, self-closing and blank elements as ""', '<a><b/><b></b><b>  </b><c  /></a>'],
    ['a repeated element as an array, in document order, with other elements between', '<a><b>1</b><c/><b>2</b><b><d>3</d></b></a>'],
    ['text trimmed, the five entities decoded', '<a>  &lt;tag&gt; &amp; &quot;q&quot; &apos;s&apos;  </a>'],
    ['text around children under #text', '<a> x <b>1</b> y </a>'],
    ['comments dropped, CDATA kept as written', '<a>t<!-- c <b> -->u<c><![CDATA[ <x> & ]]></c></a>'],
    ['CR LF read as LF', '<a>\r\n x \r\n y</a>'],
    ['non-Latin text and names', '<ns1:a><ns1:namn>Åsa Ærø Ωμέγα 北京 مرحبا</ns1:namn></ns1:a>'],
    ['processing instructions', '<a><?pi data?><b>1</b></a>'],
  ])('matches fast-xml-parser: %s', (_what, xml) => {
    expect(parseXmlTree(xml)).toEqual(oracle.parse(xml));
  });

  it('decodes character references (fast-xml-parser left them as written)', () => {
    expect(parseXmlTree('<a>&#229;&#xE5;&#x1F600; x</a>')).toEqual({ a: 'åå😀 x' });
  });

  it.each([
    ['a mismatched end tag', '<a><b></a></b>', 'does not close'],
    ['an unclosed element', '<a><b>1</b>', 'ends inside <a>'],
    ['an end tag without a start', '<a></a></b>', 'without its start tag'],
    ['two roots', '<a/><b/>', 'more than one root'],
    ['text outside the root', '<a/>x', 'text outside the root'],
    ['no root at all', '  <!-- c -->  ', 'no root element'],
    ['an unquoted attribute', '<a x=1/>', 'must be quoted'],
    ['an attribute without a value', '<a x/>', 'without a value'],
    ['an attribute without "="', '<a x "1"/>', 'has no value'],
    ['a repeated attribute', '<a x="1" x="2"/>', 'repeated'],
    ['attributes without space between', '<a x="1"y="2"/>', 'separated by white space'],
    ['"<" in an attribute value', '<a x="<"/>', '"<" in the value'],
    ['an undefined entity', '<a>&nbsp;</a>', 'undefined entity'],
    ['a bare ampersand', '<a>fish & chips</a>', 'must start an entity'],
    ['a reference to a forbidden character', '<a>&#0;</a>', 'does not allow'],
    ['a tag name starting with a digit', '<1a/>', 'valid name'],
    ['a name without a local part', '<a:/>', 'no local part'],
    ['a document ending inside a tag', '<a><b', 'ends inside a start tag'],
    ['a document ending inside a comment', '<a><!-- c', 'ends inside a comment'],
    ['a document ending inside CDATA', '<a><![CDATA[ c', 'ends inside a CDATA section'],
    ['CDATA outside the root', '<![CDATA[x]]><a/>', 'outside the root'],
    ['"/" not ending a start tag', '<a / >', 'must end it'],
    // What the W3C XML conformance suite found accepted (xml-conformance.spec.ts runs the suite).
    ['"--" inside a comment', '<a><!-- x -- y --></a>', '"--" inside a comment'],
    ['a comment ending "--->"', '<a><!-- x ---></a>', '"--" inside a comment'],
    ['"]]>" in text', '<a>x]]>y</a>', '"]]>" in text'],
    ['nested CDATA', '<a><![CDATA[ <![CDATA[ x ]]> ]]></a>', '"]]>" in text'],
    ['a processing instruction without a target', '<a><? x?></a>', 'without a target'],
    ['a bad character after a target', '<?pi+?><a/>', 'processing instruction target pi'],
    ['a misspelled declaration', '<?XML version="1.0"?><a/>', 'the target is reserved'],
    ['a declaration after white space', ' <?xml version="1.0"?><a/>', 'comes first in the document'],
    ['a declaration after a comment', '<!-- c --><?xml version="1.0"?><a/>', 'comes first in the document'],
    ['a declaration inside the root', '<a><?xml version="1.0"?></a>', 'comes first in the document'],
    ['a declaration out of order', '<?xml encoding="UTF-8" version="1.0"?><a/>', 'a malformed XML declaration'],
    ['a declaration without a version', '<?xml encoding="UTF-8"?><a/>', 'a malformed XML declaration'],
    ['a declaration with mismatched quotes', '<?xml version="1.0\'?><a/>', 'a malformed XML declaration'],
    ['a declaration of another encoding', '<?xml version="1.0" encoding="ISO-8859-1"?><a/>', 'a SOAP request here is UTF-8'],
    ['a name with "@"', '<A@/>', 'a bad character in a tag name'],
    ['a name starting with a combining mark', '<\u0300A/>', 'valid name'],
    ['an attribute name with "$"', '<a b$="1"/>', 'a bad character in an attribute name'],
    ['an end tag with a form feed', '<a></a\f>', 'does not close'],
  ])('refuses %s', (_what, xml, reason) => {
    expect(reasonOf(xml)).toContain(reason);
  });

  it('accepts what XML 1.0 allows and the old parser did not or read wrongly', () => {
    expect(parseXmlTree('<a>&#x0000000041;&#0000000066;</a>')).toEqual({ a: 'AB' });
    expect(parseXmlTree("\ufeff<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<a/>")).toEqual({ a: '' });
    expect(parseXmlTree('<?xml-stylesheet href="a"?><a><!----><?pi?></a>')).toEqual({ a: '' });
    // Fifth-edition names: a long s, a character above U+FFFF (a surrogate pair), a middle dot after the start.
    expect(parseXmlTree('<egg\u017f><\u{10032}>1</\u{10032}><p:a\u00b7b/></egg\u017f>')).toEqual({
      eggſ: { '\u{10032}': '1', 'a\u00b7b': '' },
    });
  });

  it.each([
    ['a colon alone', '<:/>'],
    ['an empty prefix', '<:a/>'],
    ['two colons', '<a:b:c/>'],
    ['a local part that cannot start a name', '<a:-b/>'],
    ['such an attribute name', '<a b:c:d="1"/>'],
  ])('refuses names that break Namespaces in XML, though XML 1.0 alone allows them: %s', (_what, xml) => {
    expect(reasonOf(xml)).toContain('is not a qualified name');
  });

  it.each([
    ['a DTD', '<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>', 'must not contain a DTD'],
    ['an entity declaration', '<a><!ENTITY x "y"></a>', 'must not contain markup declarations'],
    ['__proto__', '<a><__proto__><x>1</x></__proto__></a>', 'not allowed'],
    ['a prefixed constructor', '<a><p:constructor>1</p:constructor></a>', 'not allowed'],
    ['prototype', '<prototype/>', 'not allowed'],
  ])('refuses %s, whatever ran before it', (_what, xml, reason) => {
    expect(reasonOf(xml)).toContain(reason);
  });

  it('builds plain objects that carry no prototype keys of their own', () => {
    const tree = parseXmlTree('<a><toString>1</toString><hasOwnProperty/></a>') as { a: Record<string, unknown> };
    expect(tree.a).toEqual({ toString: '1', hasOwnProperty: '' });
    expect(Object.getPrototypeOf(tree.a)).toBe(Object.prototype);
  });

  describe("enforces the front door's limits in its one pass, with the pre-scan's words (decision 65)", () => {
    const accepted = (xml: string, limits: Partial<XmlLimits>) => () => parseXmlTree(xml, { ...DEFAULT_XML_LIMITS, ...limits });

    it('depth', () => {
      expect(accepted('<a>'.repeat(5) + '</a>'.repeat(5), { maxDepth: 5 })).not.toThrow();
      expect(reasonOf('<a>'.repeat(5) + '<b/>' + '</a>'.repeat(5), { maxDepth: 5 })).toBe(
        'the request nests elements deeper than 5 levels',
      );
      expect(reasonOf('<a>'.repeat(200_000) + '</a>'.repeat(200_000))).toBe('the request nests elements deeper than 64 levels');
    });

    it('elements', () => {
      expect(accepted(`<r>${'<a/>'.repeat(9)}</r>`, { maxElements: 10 })).not.toThrow();
      expect(reasonOf(`<r>${'<a/>'.repeat(10)}</r>`, { maxElements: 10 })).toBe('the request has more than 10 elements');
    });

    it('attributes an element, and their names', () => {
      const attrs = (k: number) => Array.from({ length: k }, (_, i) => `x${i}="1"`).join(' ');
      expect(accepted(`<a ${attrs(3)}/>`, { maxAttributes: 3 })).not.toThrow();
      expect(reasonOf(`<a ${attrs(4)}/>`, { maxAttributes: 3 })).toBe('an element has more than 3 attributes');
      expect(reasonOf('<a __proto__="1"/>')).toBe('the name __proto__ is not allowed in a request');
      expect(reasonOf('<a p:constructor="1"/>')).toBe('the name constructor is not allowed in a request');
    });

    it('name length in bytes (UTF-8), element and attribute names, a name seen before included', () => {
      expect(accepted(`<${'n'.repeat(10)}/>`, { maxNameLength: 10 })).not.toThrow();
      expect(reasonOf(`<${'n'.repeat(11)}/>`, { maxNameLength: 10 })).toBe('an element or attribute name is longer than 10 bytes');
      expect(reasonOf(`<${'é'.repeat(6)}/>`, { maxNameLength: 10 })).toBe('an element or attribute name is longer than 10 bytes');
      expect(reasonOf(`<a ${'n'.repeat(11)}="1"/>`, { maxNameLength: 10 })).toBe('an element or attribute name is longer than 10 bytes');
      parseXmlTree(`<${'m'.repeat(20)}/>`);
      expect(reasonOf(`<${'m'.repeat(20)}/>`, { maxNameLength: 10 })).toBe('an element or attribute name is longer than 10 bytes');
    });
  });

  it('keeps no document alive through the names it caches (a slice of a long name is a view of the whole text)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    // Each document 4 MB, with names no cache has seen: kept as slices, they would keep ~80 MB alive.
    for (let i = 0; i < 20; i++) {
      const xml = soapRequest(
        'products_Update',
        `<ns1:products><ns1:product><ns1:id>1</ns1:id><n${i}:description>d</n${i}:description><UniqueLongName${i}/></ns1:product></ns1:products>` +
          `<pad>${String(i).repeat(4_000_000)}</pad>`,
        { username: 'erp', password: 'pw' },
      );
      parseXmlTree(xml, DEFAULT_XML_LIMITS, i % 2 ? updateListOf : undefined);
    }
    gc();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(30_000_000);
  });
});
