import type { Db, Knex } from '@commerce/shared-db';
import { emailKey, type BackofficeRepository } from '@commerce/account-core';
import { addressColumns, customerSelect, setPasswordHash, toCustomer, type CustomerRow } from './customer.knex-repository';

/** Where the back office's customers, buyers, accounts, sales reps and terms are applied, inside the consumer's transaction. */
export function createBackofficeRepository(db: Db, trx: Knex.Transaction): BackofficeRepository {
  const one = async (query: Knex.QueryBuilder) => {
    const row = (await query.first()) as CustomerRow | undefined;
    return row ? toCustomer(row) : null;
  };
  return {
    findByExternalKey: (key) => one(customerSelect(db, trx).where('c.external_key', key)),
    findUnlinkedByEmail: (email) => one(customerSelect(db, trx).where('c.email_key', emailKey(email)).whereNull('c.external_key')),
    async saveBackofficeCustomer(c) {
      // An e-mail another customer has stays theirs (a unique violation would abort the whole transaction).
      const key = c.address.email ? emailKey(c.address.email) : null;
      const taken = key ? await db.table('customers', trx).where({ email_key: key }).whereNot({ id: c.id }).first('id') : undefined;
      const address = taken ? { ...c.address, email: c.previousEmail } : c.address;
      const columns = {
        ...addressColumns(address),
        external_key: c.externalKey,
        ...(c.status !== undefined ? { status: c.status } : {}),
        ...(c.accountId !== undefined ? { account_id: c.accountId } : {}),
        ...(c.market !== undefined ? { market: c.market } : {}),
        ...(c.pricelist !== undefined ? { pricelist: c.pricelist } : {}),
        updated_at: db.knex.fn.now(),
      };
      await db
        .table('customers', trx)
        .insert({ id: c.id, ...columns })
        .onConflict('id')
        .merge(Object.keys(columns));
      if (c.passwordHash) await setPasswordHash(db, trx, c.id, c.passwordHash);
    },
    async saveEntity(entity, id, data) {
      const existing = (await db.table('backoffice_entities', trx).where({ entity, id }).first('data')) as { data: unknown } | undefined;
      const before = typeof existing?.data === 'string' ? (JSON.parse(existing.data) as object) : ((existing?.data as object) ?? {});
      await db
        .table('backoffice_entities', trx)
        .insert({ entity, id, data: JSON.stringify({ ...before, ...data }), updated_at: db.knex.fn.now() })
        .onConflict(['entity', 'id'])
        .merge(['data', 'updated_at']);
    },
  };
}
