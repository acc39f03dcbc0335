import type { Db } from '@commerce/shared-db';
import type { ResetToken, ResetTokenRepository } from '@commerce/account-core';
import { setPasswordHash } from './customer.knex-repository';

interface ResetTokenRow {
  id: string;
  customer_id: string;
  secret_hash: string;
  expires_at: Date | string;
}

const toToken = (r: ResetTokenRow): ResetToken => ({
  id: r.id,
  customerId: r.customer_id,
  secretHash: r.secret_hash,
  expiresAt: new Date(r.expires_at),
});

export function createResetTokenRepository(db: Db): ResetTokenRepository {
  return {
    async save(token) {
      await db.table('reset_tokens').insert({
        id: token.id,
        customer_id: token.customerId,
        secret_hash: token.secretHash,
        expires_at: token.expiresAt,
      });
      // Expired links of anyone are dropped on the way: the table holds only links that may still work.
      await db.table('reset_tokens').where('expires_at', '<=', new Date()).delete();
    },
    async findValid(id, secretHash, now) {
      const row = (await db.table('reset_tokens').where({ id, secret_hash: secretHash }).andWhere('expires_at', '>', now).first()) as
        ResetTokenRow | undefined;
      return row ? toToken(row) : null;
    },
    async complete(id, secretHash, now, passwordHash) {
      return db.transaction(async (trx) => {
        // Deleting the row is what uses the link up: of two concurrent resets, one deletes it.
        const [used] = (await db
          .table('reset_tokens', trx)
          .where({ id, secret_hash: secretHash })
          .andWhere('expires_at', '>', now)
          .delete()
          .returning(['customer_id'])) as { customer_id: string }[];
        if (!used) return null;
        const customerId = used.customer_id;
        await setPasswordHash(db, trx, customerId, passwordHash);
        await db
          .table('customers', trx)
          .where({ id: customerId })
          .update({ session_epoch: db.knex.raw('session_epoch + 1'), updated_at: db.knex.fn.now() });
        await db.table('reset_tokens', trx).where({ customer_id: customerId }).delete();
        return customerId;
      });
    },
  };
}
