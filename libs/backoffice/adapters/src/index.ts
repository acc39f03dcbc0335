export * from './backoffice.migrations';
export * from './received-upserts.store';
export * from './scrypt-password.hasher';
export * from './backoffice.service';
export { createSoapRouter, DEFAULT_CORRELATION_PREFIX, type SoapRouterDeps } from './soap/soap.router';
export { buildWsdl, WSDL_OPERATIONS, type WsdlOperation } from './soap/backoffice.wsdl';
export { SPEC_OPERATIONS, type SoapOperationName } from './soap/soap-operations';
export { soapTypes, type SoapField, type SoapTypes } from './soap/soap-types';
export { soapRequest as soapRequestXml, soapAction, soapHeaders, type SoapRequestOptions } from './testing/soap-request';
