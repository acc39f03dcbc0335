import { isBackofficeError } from '@commerce/backoffice-core';
import { DeadlineExceededError, unavailableCause } from '@commerce/shared-errors';
import { SOAP11_ENVELOPE_NS } from './soap-envelope';

export const escapeXml = (text: string): string =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string);

const envelope = (body: string): string =>
  `<?xml version="1.0" encoding="utf-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="${SOAP11_ENVELOPE_NS}"><SOAP-ENV:Body>${body}</SOAP-ENV:Body></SOAP-ENV:Envelope>`;

/**
 * A success reply: one un-prefixed element holding `text` (spec: `<productsUpdateResponse>OK</…>`). It
 * carries the service namespace as the default namespace, so WSDL-generated clients recognise it.
 */
export function soapSuccess(element: string, namespace: string, text = 'OK'): string {
  return envelope(`<${element} xmlns="${escapeXml(namespace)}">${escapeXml(text)}</${element}>`);
}

/** A success reply whose element holds child elements (`innerXml`, already serialised), e.g. `events_Get`. */
export function soapSuccessXml(element: string, namespace: string, innerXml: string): string {
  return envelope(`<${element} xmlns="${escapeXml(namespace)}">${innerXml}</${element}>`);
}

export interface SoapFault {
  /** SOAP 1.1: `Client` when the request was at fault (do not resend unchanged), `Server` otherwise. */
  faultcode: 'Client' | 'Server';
  faultstring: string;
  /** Stable error code for programs, e.g. BACKOFFICE.INVALID_ENTITY. */
  code: string;
  fields?: Record<string, string>;
}

export function soapFault(fault: SoapFault, namespace: string): string {
  const fields = Object.entries(fault.fields ?? {})
    .map(([name, message]) => `<field name="${escapeXml(name)}">${escapeXml(message)}</field>`)
    .join('');
  const detail = `<detail><error xmlns="${escapeXml(namespace)}"><code>${escapeXml(fault.code)}</code>${fields}</error></detail>`;
  return envelope(
    `<SOAP-ENV:Fault><faultcode>SOAP-ENV:${fault.faultcode}</faultcode><faultstring>${escapeXml(fault.faultstring)}</faultstring>${detail}</SOAP-ENV:Fault>`,
  );
}

/** Maps what a request ended with to a fault: the reason of a backoffice error, or nothing internal at all. */
export function faultOf(error: unknown): SoapFault {
  if (isBackofficeError(error)) return { faultcode: 'Client', faultstring: error.reason, code: error.code, fields: error.fields };
  // Past the request's budget (decision 142): what it waited on may still finish, so it may have been applied; an
  // upsert is idempotent, so the same call is safe to send again.
  if (error instanceof DeadlineExceededError)
    return {
      faultcode: 'Server',
      faultstring: 'temporarily unavailable: no answer in time; send the request again',
      code: 'BACKOFFICE.UNAVAILABLE',
    };
  // An engine that did not answer in time (decision 132): nothing was applied, the same call succeeds later.
  if (unavailableCause(error))
    return {
      faultcode: 'Server',
      faultstring: 'temporarily unavailable; the request was not applied, send it again',
      code: 'BACKOFFICE.UNAVAILABLE',
    };
  return {
    faultcode: 'Server',
    faultstring: 'internal error; the request was not applied, it may be sent again',
    code: 'BACKOFFICE.INTERNAL',
  };
}
