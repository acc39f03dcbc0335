import { MalformedRequestError } from '@commerce/backoffice-core';
import { DEFAULT_XML_LIMITS, XmlPrescan, type XmlLimits } from './xml-prescan';

const scan = (xml: string, limits: Partial<XmlLimits> = {}, chunkSize = 0): void => {
  const s = new XmlPrescan({ ...DEFAULT_XML_LIMITS, ...limits });
  const bytes = Buffer.from(xml);
  if (chunkSize <= 0) s.write(bytes);
  else for (let i = 0; i < bytes.length; i += chunkSize) s.write(bytes.subarray(i, i + chunkSize));
  s.end();
};
const reason = (fn: () => void): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof MalformedRequestError) return e.reason;
    throw e;
  }
  return 'accepted';
};

const ENVELOPE = `<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns1="urn:x">
<!-- a comment with <tags> and -- dashes --><SOAP-ENV:Body><ns1:products_Update><ns1:login a='1' b = "2"><ns1:username>é&amp;</ns1:username>
<ns1:password><![CDATA[<not a tag>]]]]></ns1:password></ns1:login><products/></ns1:products_Update></SOAP-ENV:Body></SOAP-ENV:Envelope>`;

describe('the XML pre-scan', () => {
  it.each([0, 1, 2, 7])('accepts an ordinary SOAP request, whatever its chunking (%i)', (chunk) => {
    expect(reason(() => scan(ENVELOPE, {}, chunk))).toBe('accepted');
  });

  it.each([
    ['a DTD', '<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>', 'a SOAP message must not contain a DTD'],
    ['an entity declaration', '<x><!ENTITY a "b"></x>', 'a SOAP message must not contain markup declarations'],
    ['__proto__', '<a><__proto__><polluted>1</polluted></__proto__></a>', 'the name __proto__ is not allowed in a request'],
    ['a prefixed constructor', '<a><ns1:constructor/></a>', 'the name constructor is not allowed in a request'],
    ['a __proto__ attribute', '<a __proto__="1"/>', 'the name __proto__ is not allowed in a request'],
    ['an unclosed tag at the end', '<a><b', 'malformed XML: the document ends inside markup'],
  ])('refuses %s', (_what, xml, why) => {
    expect(reason(() => scan(xml))).toBe(why);
  });

  it.each([
    ['text', '<a>x\fy</a>'],
    ['a comment', '<a><!-- \u001b --></a>'],
    ['a processing instruction', '<a><?pi \u0001?></a>'],
    ['an attribute value', '<a b="\u0008"/>'],
    ['CDATA', '<a><![CDATA[\u000b]]></a>'],
    ['a name', '<a\f/>'],
    ['the login', '<E><B><op><login><username>u\u0007</username></login></op></B></E>'],
  ])('refuses a control character XML does not allow, in %s, whatever the chunking', (_where, xml) => {
    for (const chunk of [0, 1, 3])
      expect(reason(() => scan(xml, {}, chunk))).toMatch(/^malformed XML: a character XML does not allow \(U\+00[01][0-9A-F]\)$/);
  });

  it('accepts tab, line feed and carriage return everywhere, and says a NUL byte may mean UTF-16', () => {
    expect(reason(() => scan('<a b="\t\r\n">\t\r\n<!--\t\r\n--><?p \t\r\n?><![CDATA[\t\r\n]]></a>'))).toBe('accepted');
    expect(reason(() => scan('\ufeff<a/>'.split('').join('\u0000')))).toContain('a SOAP request here is UTF-8, not UTF-16');
  });

  it('refuses depth, element count, attribute count and name length beyond the limits, as the byte arrives', () => {
    expect(reason(() => scan('<a>'.repeat(5) + '</a>'.repeat(5), { maxDepth: 5 }))).toBe('accepted');
    expect(reason(() => scan('<a>'.repeat(6), { maxDepth: 5 }))).toBe('the request nests elements deeper than 5 levels');
    expect(reason(() => scan(`<r>${'<a/>'.repeat(9)}</r>`, { maxElements: 10 }))).toBe('accepted');
    expect(reason(() => scan(`<r>${'<a/>'.repeat(10)}`, { maxElements: 10 }))).toBe('the request has more than 10 elements');
    expect(reason(() => scan(`<a ${Array.from({ length: 4 }, (_, i) => `x${i}="1"`).join(' ')}/>`, { maxAttributes: 3 }))).toBe(
      'an element has more than 3 attributes',
    );
    expect(reason(() => scan(`<${'n'.repeat(11)}/>`, { maxNameLength: 10 }))).toBe('an element or attribute name is longer than 10 bytes');
  });

  it('stops at the first offending byte: nothing after it is read', () => {
    const s = new XmlPrescan({ ...DEFAULT_XML_LIMITS, maxDepth: 3 });
    expect(() => s.write(Buffer.from('<a><b><c><d>'))).toThrow('deeper than 3');
  });

  describe('reads the login on the way, for a check before parsing', () => {
    const loginOf = (inner: string) => {
      const s = new XmlPrescan();
      s.write(
        Buffer.from(`<E:Envelope xmlns:E="e"><E:Body><ns1:op><ns1:login>${inner}</ns1:login><x>1</x></ns1:op></E:Body></E:Envelope>`),
      );
      s.end();
      return s.login();
    };

    it('as the parser reads it: trimmed, the XML entities decoded, prefixes ignored', () => {
      expect(loginOf('<ns1:username> erp </ns1:username><password>p&amp;w&lt;&#x20;</password>')).toBeUndefined();
      expect(loginOf('<ns1:username> erp </ns1:username><password>p&amp;w&lt;&quot;é</password>')).toEqual({
        username: 'erp',
        password: 'p&w<"é',
      });
    });

    it.each([
      ['CDATA', '<username>erp</username><password><![CDATA[pw]]></password>'],
      ['a comment', '<username>erp</username><password>p<!-- x -->w</password>'],
      ['a nested element', '<username>erp</username><password><b>pw</b></password>'],
      ['a repeated field', '<username>erp</username><username>x</username><password>pw</password>'],
      ['a missing field', '<username>erp</username>'],
    ])('leaves it to the parser when the login holds %s', (_what, inner) => {
      expect(loginOf(inner)).toBeUndefined();
    });

    it('and when there are two login elements', () => {
      const s = new XmlPrescan();
      s.write(Buffer.from('<E><B><op><login><username>a</username><password>b</password></login><login/></op></B></E>'));
      s.end();
      expect(s.login()).toBeUndefined();
    });
  });

  describe('deep in the document, where plain tags are taken in one go, it decides as byte by byte', () => {
    const deep = (inner: string) => `<E><B><op><products><product>${inner}</product></products></op></B></E>`;
    const name = (n: number) => 'n'.repeat(n);
    it.each([
      ['plain fields', deep('<id>1</id><name>x</name><sizes><size><id>a</id></size></sizes>'), {}, 'accepted'],
      ['__proto__ deep', deep('<a><__proto__>1</__proto__></a>'), {}, 'the name __proto__ is not allowed in a request'],
      ['constructor deep', deep('<a><constructor/></a>'), {}, 'the name constructor is not allowed in a request'],
      ['prototype as an end tag', deep('<a>1</prototype>'), {}, 'the name prototype is not allowed in a request'],
      ['one level too deep', deep('<a><b><c>1</c></b></a>'), { maxDepth: 7 }, 'the request nests elements deeper than 7 levels'],
      ['exactly as deep as allowed', deep('<a><b>1</b></a>'), { maxDepth: 7 }, 'accepted'],
      ['one element too many', deep('<a/><b>1</b><c>2</c>'), { maxElements: 7 }, 'the request has more than 7 elements'],
      ['a name at the limit', deep(`<${name(12)}>1</${name(12)}>`), { maxNameLength: 12 }, 'accepted'],
      [
        'a name over the limit',
        deep(`<${name(13)}>1</${name(13)}>`),
        { maxNameLength: 12 },
        'an element or attribute name is longer than 12 bytes',
      ],
      [
        'an end tag name over the limit',
        deep(`<a>1</${name(13)}>`),
        { maxNameLength: 12 },
        'an element or attribute name is longer than 12 bytes',
      ],
      [
        'too many end tags',
        `<E><B><op><products><product><a>1</a></product></products></op></B></E></E></x>`,
        {},
        'malformed XML: an end tag without its start tag',
      ],
    ])('%s', (_what, xml, limits, why) => {
      for (const chunk of [0, 1, 3, 5]) expect([chunk, reason(() => scan(xml, limits, chunk))]).toEqual([chunk, why]);
    });
  });
});
