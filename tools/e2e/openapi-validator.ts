import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { checkoutOpenApi } from '@commerce/checkout-contracts';

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...checkoutOpenApi, $id: 'checkout-openapi' });

/** Validates a real response body against a schema of the served OpenAPI document; throws with ajv's errors. */
export function expectMatchesSchema(schemaName: string, body: unknown): void {
  const validate = ajv.getSchema(`checkout-openapi#/components/schemas/${schemaName}`);
  if (!validate) throw new Error(`no schema ${schemaName} in the OpenAPI document`);
  if (!validate(body)) {
    throw new Error(
      `response does not match ${schemaName}: ${ajv.errorsText(validate.errors, { separator: '\n' })}\n${JSON.stringify(body).slice(0, 2000)}`,
    );
  }
}
