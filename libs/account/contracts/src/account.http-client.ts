import { createInternalCaller } from '@commerce/shared-internal-client';
import { DomainError } from '@commerce/shared-errors';
import type { AccountClient, AddressChange, CustomerDto, RegisterCommand } from './account.dto';

/** The account service's internal HTTP API, for a deployment where the edge and the account service are separate processes. */
export function createAccountHttpClient(baseUrl: string): AccountClient {
  const call = createInternalCaller(baseUrl, 'account');
  const found = (customer: CustomerDto | null) => {
    if (!customer) throw new DomainError('ACCOUNT.CUSTOMER_NOT_FOUND', 'not_found', { customer: 'not found' });
    return customer;
  };
  const customer = (id: string) => `/internal/account/customers/${encodeURIComponent(id)}`;
  return {
    register: async (command: RegisterCommand) => found(await call<CustomerDto>('POST', '/internal/account/customers', command)),
    verifyLogin: async (email, password) =>
      (await call<{ customer: CustomerDto | null }>('POST', '/internal/account/logins', { email, password }))?.customer ?? null,
    getCustomer: (id) => call<CustomerDto>('GET', customer(id)),
    updateAddress: async (id, change: AddressChange) => found(await call<CustomerDto>('PUT', `${customer(id)}/address`, change)),
    changeEmail: async (id, newEmail) => found(await call<CustomerDto>('PUT', `${customer(id)}/email`, { newEmail })),
    changePassword: async (id, password, newPassword) =>
      found(await call<CustomerDto>('PUT', `${customer(id)}/password`, { password, newPassword })),
    requestPasswordReset: async (email, linkUri) => {
      await call('POST', '/internal/account/password-resets', { email, ...(linkUri !== undefined ? { linkUri } : {}) });
    },
    resetPassword: async (id, i, newPassword) =>
      found(await call<CustomerDto>('POST', '/internal/account/password-resets/complete', { id, i, newPassword })),
    subscribeNewsletter: async (subscription) => {
      await call('POST', '/internal/account/newsletter-subscriptions', subscription);
    },
    subscribeBackInStock: async (subscription) => {
      await call('POST', '/internal/account/back-in-stock-subscriptions', subscription);
    },
  };
}
