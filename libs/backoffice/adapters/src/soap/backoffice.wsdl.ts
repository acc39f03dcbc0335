import { SPEC_OPERATIONS, UPDATE_OPERATIONS } from './soap-operations';
import { escapeXml } from './soap-reply';
import { isScalar, soapTypes, type SoapField } from './soap-types';

/** An operation as the WSDL describes it: its request element's parts and its answer (a string unless it has parts). */
export interface WsdlOperation {
  name: string;
  requestElement: string;
  responseElement: string;
  parts: SoapField[];
  responseParts?: SoapField[];
}

const responseOf = (name: string): string => {
  const op = SPEC_OPERATIONS.find((o) => o.name === name);
  if (!op) throw new Error(`${name} is not an operation of the spec`);
  return op.response;
};

const login: SoapField = { name: 'login', type: 'Login', required: true };
const eventType: SoapField = { name: 'type', type: 'string', required: true };
const eventList: SoapField[] = [{ name: 'events', type: 'Event', list: 'event', required: true }];

/** What this build serves: every `*_Update` of UPDATE_OPERATIONS (login first, then its list) and the event feed. */
export const WSDL_OPERATIONS: WsdlOperation[] = [
  ...UPDATE_OPERATIONS.map((op) => ({
    name: op.name,
    requestElement: op.name,
    responseElement: responseOf(op.name),
    parts: [login, { name: op.list, type: op.type, list: op.item, required: true }],
  })),
  {
    name: 'events_Get',
    requestElement: 'events_GetRequest',
    responseElement: 'events_Get',
    parts: [login, eventType],
    responseParts: eventList,
  },
  {
    name: 'events_GetByMarkets',
    requestElement: 'events_GetByMarkets',
    responseElement: 'events_Get',
    parts: [login, eventType, { name: 'markets', type: 'Ref', list: 'market', required: true }],
    responseParts: eventList,
  },
  {
    name: 'events_Done',
    requestElement: 'events_Done',
    responseElement: responseOf('events_Done'),
    parts: [login, { name: 'event', type: 'string', repeated: true }],
  },
];

const xsdType = (type: string): string => (isScalar(type) ? `xsd:${type}` : `tns:${type}`);

function xsdElement(field: SoapField, indent: string): string {
  const min = field.required ? '1' : '0';
  if (field.repeated)
    return `${indent}<xsd:element name="${field.name}" type="${xsdType(field.type)}" minOccurs="0" maxOccurs="unbounded"/>`;
  if (!field.list) return `${indent}<xsd:element name="${field.name}" type="${xsdType(field.type)}" minOccurs="${min}"/>`;
  return [
    `${indent}<xsd:element name="${field.name}" minOccurs="${min}">`,
    `${indent}  <xsd:complexType><xsd:sequence>`,
    `${indent}    <xsd:element name="${field.list}" type="${xsdType(field.type)}" minOccurs="0" maxOccurs="unbounded"/>`,
    `${indent}  </xsd:sequence></xsd:complexType>`,
    `${indent}</xsd:element>`,
  ].join('\n');
}

function complexType(name: string, fields: SoapField[]): string {
  return [
    `    <xsd:complexType name="${name}">`,
    '      <xsd:sequence>',
    ...fields.map((f) => xsdElement(f, '        ')),
    '      </xsd:sequence>',
    '    </xsd:complexType>',
  ].join('\n');
}

/**
 * A SOAP 1.1 document/literal WSDL with full XSD types, served at `?wsdl`. SOAPAction is
 * `{namespace}<Operation>` with a capital first letter, as the spec's clients send it.
 */
export function buildWsdl(options: { namespace: string; location: string; operations?: WsdlOperation[] }): string {
  const ns = escapeXml(options.namespace);
  const operations = options.operations ?? WSDL_OPERATIONS;
  const action = (name: string) => `${ns}${name.charAt(0).toUpperCase()}${name.slice(1)}`;
  const types = Object.entries(soapTypes).map(([name, fields]) => complexType(name, fields));
  const elementWith = (name: string, parts: SoapField[]): string[] => [
    `    <xsd:element name="${name}">`,
    '      <xsd:complexType>',
    '        <xsd:sequence>',
    ...parts.map((p) => xsdElement(p, '          ')),
    '        </xsd:sequence>',
    '      </xsd:complexType>',
    '    </xsd:element>',
  ];
  // events_Get and events_GetByMarkets answer with the same element: declared once.
  const declared = new Set<string>();
  const elements = operations.flatMap((op) => {
    const out = elementWith(op.requestElement, op.parts);
    if (!declared.has(op.responseElement)) {
      declared.add(op.responseElement);
      out.push(
        ...(op.responseParts
          ? elementWith(op.responseElement, op.responseParts)
          : [`    <xsd:element name="${op.responseElement}" type="xsd:string"/>`]),
      );
    }
    return out;
  });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<wsdl:definitions name="BackofficeService" targetNamespace="${ns}" xmlns:tns="${ns}"`,
    '    xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"',
    '    xmlns:xsd="http://www.w3.org/2001/XMLSchema">',
    '  <wsdl:types>',
    `  <xsd:schema targetNamespace="${ns}" xmlns:tns="${ns}" xmlns:xsd="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">`,
    ...types,
    ...elements,
    '  </xsd:schema>',
    '  </wsdl:types>',
    ...operations.flatMap((op) => [
      `  <wsdl:message name="${op.name}Request"><wsdl:part name="parameters" element="tns:${op.requestElement}"/></wsdl:message>`,
      `  <wsdl:message name="${op.name}Response"><wsdl:part name="parameters" element="tns:${op.responseElement}"/></wsdl:message>`,
    ]),
    '  <wsdl:portType name="BackofficePortType">',
    ...operations.map(
      (op) =>
        `    <wsdl:operation name="${op.name}"><wsdl:input message="tns:${op.name}Request"/><wsdl:output message="tns:${op.name}Response"/></wsdl:operation>`,
    ),
    '  </wsdl:portType>',
    '  <wsdl:binding name="BackofficeBinding" type="tns:BackofficePortType">',
    '    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>',
    ...operations.map((op) =>
      [
        `    <wsdl:operation name="${op.name}">`,
        `      <soap:operation soapAction="${action(op.name)}" style="document"/>`,
        '      <wsdl:input><soap:body use="literal"/></wsdl:input>',
        '      <wsdl:output><soap:body use="literal"/></wsdl:output>',
        '    </wsdl:operation>',
      ].join('\n'),
    ),
    '  </wsdl:binding>',
    '  <wsdl:service name="BackofficeService">',
    `    <wsdl:port name="BackofficePort" binding="tns:BackofficeBinding"><soap:address location="${escapeXml(options.location)}"/></wsdl:port>`,
    '  </wsdl:service>',
    '</wsdl:definitions>',
    '',
  ].join('\n');
}
