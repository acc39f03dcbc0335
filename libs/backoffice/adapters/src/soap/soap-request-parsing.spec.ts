import {
  InvalidEntityError,
  MalformedRequestError,
  OperationNotImplementedError,
  UnknownOperationError,
  validateBatch,
} from '@commerce/backoffice-core';
import { SoapProductSchema } from '@commerce/erp-contracts';
import { soapRequest } from '../testing/soap-request';
import { parseSoapEnvelope } from './soap-envelope';
import { checkSoapAction, handlerFor, operationOfElement } from './soap-operations';
import { xmlListToEntities, xmlToEntity, type XmlNode } from './soap-xml.mapper';

const login = { username: 'erp', password: 'pw' };

function productsOf(innerXml: string): unknown[] {
  const { payload } = parseSoapEnvelope(soapRequest('products_Update', innerXml, login));
  return xmlListToEntities('Product', 'product', (payload as Record<string, XmlNode>)['products']);
}

describe('parsing a SOAP request', () => {
  it('finds the operation whatever the prefixes, and the login element', () => {
    const xml = soapRequest('products_Update', '<tns:products/>', { ...login, prefix: 'tns' });
    const { operation, payload } = parseSoapEnvelope(xml);
    expect(operation).toBe('products_Update');
    expect((payload as Record<string, XmlNode>)['login']).toEqual({ username: 'erp', password: 'pw' });
  });

  it('turns a single <variation> into a list of one, keeps values as strings and an empty list as []', () => {
    const [product] = productsOf(
      '<ns1:products><ns1:product><ns1:id>007</ns1:id><ns1:weight><ns1:value>1.50</ns1:value></ns1:weight>' +
        '<ns1:variations><ns1:variation><ns1:id>12</ns1:id><ns1:sizes/><ns1:displays><ns1:display><ns1:categories><ns1:category><ns1:id>3</ns1:id></ns1:category></ns1:categories></ns1:display></ns1:displays></ns1:variation></ns1:variations>' +
        '<ns1:media><ns1:image><ns1:image>a.jpg</ns1:image><ns1:variation><ns1:id>12</ns1:id></ns1:variation></ns1:image></ns1:media>' +
        '<ns1:description></ns1:description><ns1:brand/></ns1:product></ns1:products>',
    );
    expect(product).toEqual({
      id: '007',
      description: '',
      weight: { value: '1.50' },
      variations: [{ id: '12', sizes: [], displays: [{ categories: [{ id: '3' }] }] }],
      media: [{ image: 'a.jpg', variation: { id: '12' } }],
    });
    expect(SoapProductSchema.safeParse(product).success).toBe(true);
  });

  it('keeps repeated products and sizes in document order', () => {
    const products = productsOf(
      '<ns1:products><ns1:product><ns1:id>1</ns1:id><ns1:variations><ns1:variation><ns1:id>v</ns1:id><ns1:sizes>' +
        '<ns1:size><ns1:id>S</ns1:id><ns1:warehouseitems><ns1:warehouse><ns1:id>w1</ns1:id><ns1:qty>4</ns1:qty></ns1:warehouse></ns1:warehouseitems></ns1:size><ns1:size><ns1:id>M</ns1:id></ns1:size>' +
        '</ns1:sizes></ns1:variation></ns1:variations></ns1:product><ns1:product><ns1:id>2</ns1:id></ns1:product></ns1:products>',
    );
    expect(products).toEqual([
      { id: '1', variations: [{ id: 'v', sizes: [{ id: 'S', warehouseitems: [{ id: 'w1', qty: '4' }] }, { id: 'M' }] }] },
      { id: '2' },
    ]);
  });

  it('leaves a wrongly shaped field for validation to name', () => {
    const products = productsOf(
      '<ns1:products><ns1:product><ns1:id>9</ns1:id><ns1:sku><ns1:x>1</ns1:x></ns1:sku></ns1:product></ns1:products>',
    );
    const error = (() => {
      try {
        validateBatch('products', SoapProductSchema, products);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidEntityError);
    expect((error as InvalidEntityError).reason).toBe('products[0] (id 9): sku must be text');
  });

  it.each([
    ['not XML at all', 'hello'],
    ['broken XML', '<Envelope><Body></Envelope>'],
    ['a document that is not an envelope', '<?xml version="1.0"?><order><id>1</id></order>'],
    ['an envelope without a Body', '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header/></s:Envelope>'],
    ['an empty Body', '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body/></s:Envelope>'],
    ['a DTD', '<!DOCTYPE x [<!ENTITY a "aaaa">]><Envelope><Body><x>&a;</x></Body></Envelope>'],
    ['an empty body', ''],
  ])('refuses %s as a malformed request', (_what, xml) => {
    expect(() => parseSoapEnvelope(xml)).toThrow(MalformedRequestError);
  });
});

describe('resolving the operation', () => {
  const products = operationOfElement('products_Update');

  it('accepts the element with a capital first letter', () => {
    expect(operationOfElement('Products_Update').name).toBe('products_Update');
    expect(operationOfElement('events_GetRequest').name).toBe('events_Get');
  });

  it('refuses an element the spec does not list', () => {
    expect(() => operationOfElement('products_Delete')).toThrow(UnknownOperationError);
  });

  it.each([
    'urn:commerce-service:backofficeProducts_Update',
    '"urn:commerce-service:backofficeproducts_Update"',
    'urn:other#Products_Update',
    'http://x/y/products_Update',
    '',
    '""',
  ])('accepts SOAPAction %j for products_Update', (action) => expect(() => checkSoapAction(action, products)).not.toThrow());

  it.each(['urn:commerce-service:backofficeSizes_Update', 'urn:commerce-service:backofficeProducts_Updatex', 'Products'])(
    'refuses SOAPAction %j for products_Update',
    (action) => {
      expect(() => checkSoapAction(action, products)).toThrow(UnknownOperationError);
    },
  );

  it('answers "operation not implemented yet" for an operation of the spec this build does not serve', () => {
    expect(() => handlerFor(operationOfElement('sizes_Update'), {})).toThrow(new OperationNotImplementedError('sizes_Update'));
    expect(new OperationNotImplementedError('sizes_Update').reason).toBe('operation not implemented yet: sizes_Update');
  });

  it('maps the login element of a Login type', () => {
    expect(xmlToEntity('Login', { username: 'a', password: '' })).toEqual({ username: 'a', password: '' });
  });
});
