import type { StoreConfig } from '@commerce/shared-config';
import type { PaymentProvider } from '@commerce/payment-core';
import { hostedTestProvider } from './providers/hosted-test.provider';
import { embeddedTestProvider } from './providers/embedded-test.provider';
import { InvoiceOptionsSchema, invoiceTestProvider } from './providers/invoice-test.provider';
import type { TestProviderSettings } from './providers/test-provider.settings';

/** The providers built in; a real PSP's plugin is one more entry here. */
export const BUILT_IN_PROVIDERS = ['test', 'test-form', 'test-embedded', 'test-invoice'] as const;

/**
 * The provider plugins the store's payment methods name, each built once with the `options` of the first
 * method naming it. A method naming a provider that is not installed stops the start with its name.
 */
export function paymentProviders(
  store: StoreConfig,
  settings: TestProviderSettings,
  minorDigits: (currency: string) => number,
): Map<string, PaymentProvider> {
  const providers = new Map<string, PaymentProvider>();
  store.paymentMethods.forEach((method, i) => {
    if (providers.has(method.provider)) return;
    const build = (): PaymentProvider => {
      switch (method.provider) {
        case 'test':
          return hostedTestProvider('test', 'redirect', settings);
        case 'test-form':
          return hostedTestProvider('test-form', 'form', settings);
        case 'test-embedded':
          return embeddedTestProvider('test-embedded', settings);
        case 'test-invoice': {
          const options = InvoiceOptionsSchema.safeParse(method.options);
          if (!options.success)
            throw new Error(
              `config: paymentMethods.${i}.options ${options.error.issues.map((x) => `${x.path.join('.')} ${x.message}`).join('; ')}`,
            );
          return invoiceTestProvider('test-invoice', options.data, minorDigits);
        }
        default:
          throw new Error(
            `config: paymentMethods.${i}.provider ${method.provider} is not installed (built in: ${BUILT_IN_PROVIDERS.join(', ')})`,
          );
      }
    };
    providers.set(method.provider, build());
  });
  return providers;
}
