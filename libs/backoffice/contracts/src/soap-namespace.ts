/**
 * The XML namespace of the back-office SOAP API when the store configuration names none. The spec leaves
 * the namespace to each installation (`{soap_namespace}`), so this is a neutral default, not a brand.
 */
export const DEFAULT_SOAP_NAMESPACE = 'urn:commerce-service:backoffice';

/** Where the SOAP API answers (spec: `{soap_host}/ams/system/service/module/soap/api`). */
export const DEFAULT_SOAP_PATH = '/ams/system/service/module/soap/api';
