import { XMLParser, XMLValidator } from 'fast-xml-parser';
import {
  AddressSchema,
  CarrierSchema,
  ChargeSchema,
  AdditionalSchema,
  LineWarehouseSchema,
  SupplierOrderSchema,
  LineSizeSchema,
  ProductLineSchema,
  BuyerSchema,
  SoapAccountSchema,
  SoapCustomerSchema,
  MasterSalesRepSchema,
  SoapSalesRepSchema,
  SoapPaymentTermsSchema,
  SoapShippingTermsSchema,
  InvoiceItemSchema,
  InvoiceItemsSchema,
  SoapInvoiceSchema,
  OrderBuyerSchema,
  OrderMasterSalesRepSchema,
  OrderDeliveryWindowSchema,
  PaymentSchema,
  PaymentsSchema,
  RefundSchema,
  ShipmentSchema,
  SoapOrderSchema,
  DeliveryWindowVariationSchema,
  DisplaySchema,
  PricelistProductSchema,
  PricelistVariationSchema,
  RefSchema,
  SizeTableSchema,
  SoapDeliveryWindowSchema,
  SoapMarketSchema,
  SoapPricelistSchema,
  SoapSizeSchema,
  SoapWarehouseSchema,
  SizeStockSchema,
  SoapProductSchema,
  StoreMetaSchema,
  VariationSchema,
  WarehouseItemSchema,
} from '@commerce/erp-contracts';
import { buildWsdl } from './backoffice.wsdl';
import { SPEC_OPERATIONS, UPDATE_OPERATIONS } from './soap-operations';
import { soapTypes } from './soap-types';

const ns = 'urn:example:bo';
const wsdl = buildWsdl({ namespace: ns, location: 'http://shop.example/ams/system/service/module/soap/api' });
const doc = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
}).parse(wsdl);

type Node = Record<string, unknown[]> & Record<string, string>;
const first = (n: unknown, key: string) => ((n as Node)[key] as unknown[])[0] as Node;

describe('the WSDL', () => {
  it('is well-formed XML, document/literal over SOAP 1.1, with the endpoint and the capitalised SOAPAction', () => {
    expect(XMLValidator.validate(wsdl)).toBe(true);
    const defs = first(doc, 'definitions');
    const binding = first(defs, 'binding');
    expect(first(binding, 'binding').style).toBe('document');
    const op = first(binding, 'operation');
    expect(op.name).toBe('products_Update');
    expect(first(op, 'operation').soapAction).toBe(`${ns}Products_Update`);
    expect(first(first(op, 'input'), 'body').use).toBe('literal');
    expect(first(first(first(defs, 'service'), 'port'), 'address').location).toBe('http://shop.example/ams/system/service/module/soap/api');
  });

  it('declares products_Update with login then products, and productsUpdateResponse as a string', () => {
    const schema = first(first(first(doc, 'definitions'), 'types'), 'schema');
    const elements = schema['element'] as Node[];
    const request = elements.find((e) => e.name === 'products_Update');
    const parts = (first(first(request, 'complexType'), 'sequence')['element'] as Node[]).map((e) => e.name);
    expect(parts).toEqual(['login', 'products']);
    expect(elements.find((e) => e.name === 'productsUpdateResponse')?.type).toBe('xsd:string');
  });

  // The XSD types and the zod contract describe the same entity; this keeps them from drifting apart.
  it.each([
    ['Product', SoapProductSchema],
    ['Variation', VariationSchema],
    ['ProductSize', SizeStockSchema],
    ['WarehouseItem', WarehouseItemSchema],
    ['Display', DisplaySchema],
    ['Ref', RefSchema],
    ['StoreMeta', StoreMetaSchema],
    ['Size', SoapSizeSchema],
    ['SizeTable', SizeTableSchema],
    ['Pricelist', SoapPricelistSchema],
    ['PricelistProduct', PricelistProductSchema],
    ['PricelistVariation', PricelistVariationSchema],
    ['Market', SoapMarketSchema],
    ['Warehouse', SoapWarehouseSchema],
    ['DeliveryWindow', SoapDeliveryWindowSchema],
    ['DeliveryWindowVariation', DeliveryWindowVariationSchema],
    ['Address', AddressSchema],
    ['Carrier', CarrierSchema],
    ['Charge', ChargeSchema],
    ['Additional', AdditionalSchema],
    ['LineWarehouse', LineWarehouseSchema],
    ['SupplierOrder', SupplierOrderSchema],
    ['LineSize', LineSizeSchema],
    ['ProductLine', ProductLineSchema],
    ['Buyer', BuyerSchema],
    ['Account', SoapAccountSchema],
    ['Customer', SoapCustomerSchema],
    ['MasterSalesRep', MasterSalesRepSchema],
    ['SalesRep', SoapSalesRepSchema],
    ['PaymentTerms', SoapPaymentTermsSchema],
    ['ShippingTerms', SoapShippingTermsSchema],
    ['InvoiceItem', InvoiceItemSchema],
    ['InvoiceItems', InvoiceItemsSchema],
    ['Invoice', SoapInvoiceSchema],
    ['OrderBuyer', OrderBuyerSchema],
    ['OrderMasterSalesRep', OrderMasterSalesRepSchema],
    ['OrderDeliveryWindow', OrderDeliveryWindowSchema],
    ['Payment', PaymentSchema],
    ['Payments', PaymentsSchema],
    ['Refund', RefundSchema],
    ['Shipment', ShipmentSchema],
    ['Order', SoapOrderSchema],
  ] as const)('types %s with every field of its contract schema', (type, schema) => {
    const fields = (soapTypes[type] ?? []).map((f) => f.name);
    expect(fields.length).toBeGreaterThan(0);
    expect([...fields].sort()).toEqual(Object.keys(schema.shape).sort());
    const complex = (first(first(first(doc, 'definitions'), 'types'), 'schema')['complexType'] as Node[]).find((c) => c.name === type);
    const declared = (first(complex, 'sequence')['element'] as Node[]).map((e) => e.name);
    expect(declared).toEqual(fields);
  });
});

describe('the WSDL operations', () => {
  it('declares every operation of the spec, each *_Update with login then its list, and a string answer', () => {
    const defs = first(doc, 'definitions');
    const bound = (first(defs, 'binding')['operation'] as Node[]).map((o) => o.name).sort();
    expect(bound).toEqual(SPEC_OPERATIONS.map((o) => o.name).sort());
    const elements = first(first(defs, 'types'), 'schema')['element'] as Node[];
    for (const op of UPDATE_OPERATIONS) {
      const request = elements.find((e) => e.name === op.name);
      const parts = (first(first(request, 'complexType'), 'sequence')['element'] as Node[]).map((e) => e.name);
      expect(parts).toEqual(['login', op.list]);
      const response = SPEC_OPERATIONS.find((o) => o.name === op.name)?.response;
      expect(elements.find((e) => e.name === response)?.type).toBe('xsd:string');
    }
  });

  it('declares the event feed: events_GetRequest, events_GetByMarkets and events_Done, answered by events_Get and eventsDoneResponse', () => {
    const elements = first(first(first(doc, 'definitions'), 'types'), 'schema')['element'] as Node[];
    const partsOf = (name: string) =>
      (
        first(
          first(
            elements.find((e) => e.name === name),
            'complexType',
          ),
          'sequence',
        )['element'] as Node[]
      ).map((e) => e.name);
    expect(partsOf('events_GetRequest')).toEqual(['login', 'type']);
    expect(partsOf('events_GetByMarkets')).toEqual(['login', 'type', 'markets']);
    expect(partsOf('events_Done')).toEqual(['login', 'event']);
    expect(partsOf('events_Get')).toEqual(['events']);
    expect(elements.filter((e) => e.name === 'events_Get')).toHaveLength(1);
    expect(elements.find((e) => e.name === 'eventsDoneResponse')?.type).toBe('xsd:string');
    const eventType = (first(first(first(doc, 'definitions'), 'types'), 'schema')['complexType'] as Node[]).find((c) => c.name === 'Event');
    expect((first(eventType, 'sequence')['element'] as Node[]).map((e) => e.name)).toEqual([
      'id',
      'type',
      'entry',
      'mission',
      'date',
      'data',
    ]);
  });

  it('refers only to types it declares', () => {
    const declared = new Set(Object.keys(soapTypes).map((t) => `tns:${t}`));
    const referenced = [...wsdl.matchAll(/<xsd:element [^>]*type="(tns:[A-Za-z]+)"/g)].map((m) => m[1]);
    expect(referenced).toContain('tns:Order');
    expect(referenced.filter((t) => !declared.has(t as string))).toEqual([]);
  });
});
