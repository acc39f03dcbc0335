import { randomUUID } from 'node:crypto';
import type { ReceivedAccount, ReceivedBuyer, SoapCustomer } from '@commerce/erp-contracts';
import type { AddressDto } from '@commerce/account-contracts';
import { emptyAddress } from '@commerce/account-contracts';
import type { BackofficeRepository } from './customer.repository';

/** The spec's address fields of a SOAP customer or buyer, by our names; only those the ERP sent. */
function addressOf(soap: SoapCustomer | ReceivedBuyer): Partial<AddressDto> {
  const fields: Partial<Record<keyof AddressDto, string | undefined>> = {
    email: soap.email?.trim(),
    firstName: soap.firstname,
    lastName: soap.lastname,
    address1: soap.address1,
    address2: soap.address2,
    city: soap.city,
    state: soap.state,
    // Our column holds a two-letter code; anything else from the ERP is not a country we can ship to.
    country: soap.country === undefined ? undefined : /^[A-Za-z]{2}$/.test(soap.country.trim()) ? soap.country.trim().toUpperCase() : '',
    phoneNumber: soap.telephone,
    zipCode: soap.zipcode,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<AddressDto>;
}

export interface BackofficeCustomer {
  /** `customer:<id>` or `buyer:<id>`: the ERP's ids of customers and buyers are two namespaces. */
  externalKey: string;
  address: Partial<AddressDto>;
  status?: string | undefined;
  /** A buyer's account, market and pricelist (B2B). */
  accountId?: string | undefined;
  market?: string | undefined;
  pricelist?: string | undefined;
  /** A buyer's scrypt hash from backoffice-soap (decision 30); absent: the password is left as it is. */
  passwordHash?: string | undefined;
}

/**
 * Applies a customer or buyer from the ERP (decision 12: fields left out keep their value). It is found by
 * its ERP id, else by its e-mail (a customer who registered in the shop and whom the ERP now sends: the
 * two become one), else created without a password (a password reset gives it one). An e-mail another
 * customer has is not taken over: the rest applies and the old e-mail stays.
 */
export async function applyBackofficeCustomer(
  repo: BackofficeRepository,
  c: BackofficeCustomer,
): Promise<{ id: string; created: boolean }> {
  const existing =
    (await repo.findByExternalKey(c.externalKey)) ?? (c.address.email ? await repo.findUnlinkedByEmail(c.address.email) : null);
  const address = { ...(existing?.address ?? emptyAddress()), ...c.address };
  const id = existing?.id ?? randomUUID();
  await repo.saveBackofficeCustomer({
    id,
    externalKey: c.externalKey,
    address,
    previousEmail: existing?.address.email ?? '',
    status: c.status,
    accountId: c.accountId,
    market: c.market,
    pricelist: c.pricelist,
    passwordHash: c.passwordHash,
  });
  return { id, created: !existing };
}

export async function applyCustomerUpsert(repo: BackofficeRepository, soap: SoapCustomer) {
  return applyBackofficeCustomer(repo, { externalKey: `customer:${soap.id}`, address: addressOf(soap), status: soap.status });
}

/**
 * An account (B2B) with its buyers: the account kept as the ERP sent it (merged, buyers' hashes left out),
 * each buyer a customer who logs in with the password the ERP gave, in the buyer's (else the account's)
 * market and pricelist.
 */
export async function applyAccountUpsert(repo: BackofficeRepository, account: ReceivedAccount) {
  const { buyers, ...rest } = account;
  await repo.saveEntity('account', account.id, {
    ...rest,
    ...(buyers ? { buyers: buyers.map(({ passwordhash: _hash, ...buyer }) => buyer) } : {}),
  });
  for (const buyer of buyers ?? []) {
    await applyBackofficeCustomer(repo, {
      externalKey: `buyer:${buyer.id}`,
      address: addressOf(buyer),
      status: buyer.status,
      accountId: account.id,
      market: buyer.market?.id ?? account.market?.id,
      pricelist: buyer.pricelist?.id ?? account.pricelist?.id,
      passwordHash: buyer.passwordhash,
    });
  }
}

/** Sales reps, payment terms and shipping terms: kept (merged) for the accounts that name them. */
export async function applyReferenceUpsert(
  repo: BackofficeRepository,
  entity: 'salesrep' | 'paymentterms' | 'shippingterms',
  data: { id: string },
) {
  await repo.saveEntity(entity, data.id, data as Record<string, unknown>);
}
