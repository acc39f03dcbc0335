import { SPEC_OPERATIONS, UPDATE_OPERATIONS } from './soap-operations';
import { escapeXml } from './soap-reply';
import { isScalar, soapTypes, type SoapField } from './soap-types';

/** An operation as the WSDL describes it: its request element's parts and its one-string answer. */
export interface WsdlOperation {
  name: string;
  requestElement: string;
  responseElement: string;
  parts: SoapField[];
}

const responseOf = (name: string): string => {
  const op = SPEC_OPERATIONS.find((o) => o.name === name);
  if (!op) throw new Error(`${name} is not an operation of the spec`);
  return op.response;
};

/** What this build serves: every `*_Update` of UPDATE_OPERATIONS, login first, then its list. */
export const WSDL_OPERATIONS: WsdlOperation[] = UPDATE_OPERATIONS.map((op) => ({
  name: op.name,
  requestElement: op.name,
  responseElement: responseOf(op.name),
  parts: [
    { name: 'login', type: 'Login', required: true },
    { name: op.list, type: op.type, list: op.item, required: true },
  ],
}));

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
  const elements = operations.flatMap((op) => [
    `    <xsd:element name="${op.requestElement}">`,
    '      <xsd:complexType>',
    '        <xsd:sequence>',
    ...op.parts.map((p) => xsdElement(p, '          ')),
    '        </xsd:sequence>',
    '      </xsd:complexType>',
    '    </xsd:element>',
    `    <xsd:element name="${op.responseElement}" type="xsd:string"/>`,
  ]);
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<wsdl:definitions name="BackofficeService" targetNamespace="${ns}" xmlns:tns="${ns}"`,
    '    xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"',
    '    xmlns:xsd="http://www.w3.org/2001/XMLSchema">',
    '  <wsdl:types>',
    `  <xsd:schema targetNamespace="${ns}" elementFormDefault="qualified">`,
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
