import type { SoapSize } from '@commerce/erp-contracts';
import { InvalidUpsertError } from './catalog.errors';
import type { CatalogRepository } from './catalog.repository';
import type { ProductKey } from './products.repository';
import type { Size, SizeTable } from './product';
import { deepEqual, FieldErrors, pick, productUpsertedEvents, type ApplyEntityResult } from './upsert.helpers';

/**
 * `sizes_Update`: a size (its name, sku, ean, comment) and its size table (description, stock divisor,
 * stock unit). Products that show the size (its name is their item name) or the table (its stock unit
 * is their `stockUnit`, its divisor makes their stock) are published again in the same transaction.
 */
export async function applySizeUpsert(deps: { catalog: CatalogRepository }, soap: SoapSize): Promise<ApplyEntityResult> {
  const errors = new FieldErrors();
  const divisor = errors.wholeNumber('sizetable.stockdivisor', soap.sizetable?.stockdivisor, 1);
  if (errors.any) throw new InvalidUpsertError('size', errors.fields);
  const externalId = soap.id.trim();

  return deps.catalog.transaction(async (uow) => {
    const affected: ProductKey[] = [];
    let changed = false;

    let tableExternalId: string | null | undefined;
    if (soap.sizetable) {
      tableExternalId = soap.sizetable.id.trim();
      const before = await uow.sizes.findTable(tableExternalId);
      const table: SizeTable = {
        externalId: tableExternalId,
        description: pick(soap.sizetable.description, before?.description, ''),
        stockDivisor: divisor ?? before?.stockDivisor ?? 1,
        stockUnit: pick(soap.sizetable.stockunit, before?.stockUnit, ''),
      };
      if (!before || !deepEqual(before, table)) {
        await uow.sizes.saveTable(table);
        changed = true;
        // The unit is their `stockUnit`; the divisor is how many items their stock makes (`stock`, `inStock`).
        if (before && (before.stockUnit !== table.stockUnit || before.stockDivisor !== table.stockDivisor))
          affected.push(...(await uow.products.keysWithSizeTable(table.externalId)));
      }
    }

    const [before] = await uow.sizes.findByExternalIds([externalId]);
    const size: Omit<Size, 'id'> & { id: number | null } = {
      id: before?.id ?? null,
      externalId,
      name: pick(soap.description?.trim(), before?.name, externalId),
      sku: pick(soap.sku, before?.sku, ''),
      ean: pick(soap.ean, before?.ean, ''),
      comment: pick(soap.comment, before?.comment, ''),
      sizeTableExternalId: tableExternalId !== undefined ? tableExternalId : (before?.sizeTableExternalId ?? null),
    };
    if (!before || !deepEqual(before, size)) {
      await uow.sizes.save(size);
      changed = true;
      if (before && (before.name !== size.name || before.sizeTableExternalId !== size.sizeTableExternalId)) {
        affected.push(...(await uow.products.keysWithSizes([before.id])));
      }
    }

    const events = productUpsertedEvents(affected);
    await uow.outbox.publish(events);
    return { changed, affectedProducts: events.length };
  });
}
