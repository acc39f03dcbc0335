import { enqueue } from '@commerce/shared-bus';
import { isUniqueViolation, type Db, type Knex } from '@commerce/shared-db';
import type { AddressDto } from '@commerce/account-contracts';
import { emailKey, type Customer, type CustomerRepository } from '@commerce/account-core';

export interface CustomerRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  address1: string;
  address2: string;
  city: string;
  state: string;
  country: string;
  phone_number: string;
  zip_code: string;
  password_hash: string | null;
  session_epoch: number;
  external_key: string | null;
  market: string | null;
  pricelist: string | null;
}

export const addressColumns = (a: AddressDto) => ({
  // A customer from the back office may have no e-mail: no key, so any number of them fit the unique index.
  email_key: a.email ? emailKey(a.email) : null,
  email: a.email,
  first_name: a.firstName,
  last_name: a.lastName,
  address1: a.address1,
  address2: a.address2,
  city: a.city,
  state: a.state,
  country: a.country,
  phone_number: a.phoneNumber,
  zip_code: a.zipCode,
});

export const toCustomer = (r: CustomerRow): Customer => ({
  id: r.id,
  address: {
    email: r.email,
    firstName: r.first_name,
    lastName: r.last_name,
    address1: r.address1,
    address2: r.address2,
    city: r.city,
    state: r.state,
    country: r.country,
    phoneNumber: r.phone_number,
    zipCode: r.zip_code,
  },
  passwordHash: r.password_hash,
  sessionEpoch: Number(r.session_epoch),
  externalKey: r.external_key,
  market: r.market,
  pricelist: r.pricelist,
});

/** Customers with their password hash (none for one the back office sent without a password). */
export const customerSelect = (db: Db, trx?: Knex.Transaction) =>
  db.table('customers as c', trx).leftJoin(`${db.schema}.credentials as k`, 'k.customer_id', 'c.id').select('c.*', 'k.password_hash');

/** Sets a customer's password hash (a customer from the back office may have had none). */
export async function setPasswordHash(db: Db, trx: Knex.Transaction | undefined, customerId: string, passwordHash: string): Promise<void> {
  await db
    .table('credentials', trx)
    .insert({ customer_id: customerId, password_hash: passwordHash, changed_at: db.knex.fn.now() })
    .onConflict('customer_id')
    .merge(['password_hash', 'changed_at']);
}

export function createCustomerRepository(db: Db): CustomerRepository {
  const select = () => customerSelect(db);
  return {
    async create(customer, events) {
      try {
        await db.transaction(async (trx) => {
          await db.table('customers', trx).insert({ id: customer.id, ...addressColumns(customer.address) });
          await enqueue(db, trx, events);
          if (customer.passwordHash)
            await db.table('credentials', trx).insert({ customer_id: customer.id, password_hash: customer.passwordHash });
        });
        return true;
      } catch (e) {
        if (isUniqueViolation(e)) return false;
        throw e;
      }
    },
    async findById(id) {
      if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
      const row = (await select().where('c.id', id).first()) as CustomerRow | undefined;
      return row ? toCustomer(row) : null;
    },
    async findByEmail(email) {
      const row = (await select().where('c.email_key', emailKey(email)).first()) as CustomerRow | undefined;
      return row ? toCustomer(row) : null;
    },
    async updateAddress(id, address, events) {
      try {
        return await db.transaction(async (trx) => {
          const rows = (await db
            .table('customers', trx)
            .where({ id })
            .update({ ...addressColumns(address), updated_at: db.knex.fn.now() })
            .returning('*')) as CustomerRow[];
          if (!rows[0]) return null;
          await enqueue(db, trx, events(toCustomer({ ...rows[0], password_hash: null })));
          return true;
        });
      } catch (e) {
        if (isUniqueViolation(e)) return false;
        throw e;
      }
    },
    async updatePasswordHash(id, passwordHash) {
      await setPasswordHash(db, undefined, id, passwordHash);
    },
  };
}
