import { DEFAULT_SOAP_NAMESPACE } from '@commerce/backoffice-contracts';

const escape = (text: string): string =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string);

export interface SoapRequestOptions {
  username: string;
  password: string;
  namespace?: string;
  /** Prefix of the service namespace in the envelope; the spec's clients use `ns1`. */
  prefix?: string;
}

/**
 * A SOAP 1.1 request as the spec's clients send it: `<ns1:{op}>` with `login` first, then `innerXml`
 * (un-prefixed elements are put in the service namespace by a default xmlns). For tests of the
 * back-office endpoint, unit and end-to-end alike.
 */
export function soapRequest(op: string, innerXml: string, options: SoapRequestOptions): string {
  const ns = escape(options.namespace ?? DEFAULT_SOAP_NAMESPACE);
  const p = options.prefix ?? 'ns1';
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:${p}="${ns}">`,
    '<SOAP-ENV:Body>',
    `<${p}:${op} xmlns="${ns}">`,
    `<${p}:login><${p}:username>${escape(options.username)}</${p}:username><${p}:password>${escape(options.password)}</${p}:password></${p}:login>`,
    innerXml,
    `</${p}:${op}>`,
    '</SOAP-ENV:Body>',
    '</SOAP-ENV:Envelope>',
  ].join('');
}

/** The SOAPAction header value for an operation: `{namespace}<Operation>` with a capital first letter. */
export function soapAction(op: string, namespace: string = DEFAULT_SOAP_NAMESPACE): string {
  return `${namespace}${op.charAt(0).toUpperCase()}${op.slice(1)}`;
}

/** Headers of a SOAP 1.1 request as the spec lists them. */
export function soapHeaders(op: string, namespace: string = DEFAULT_SOAP_NAMESPACE): Record<string, string> {
  return { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: soapAction(op, namespace) };
}
