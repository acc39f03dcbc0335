import type { SoapPricelist } from '@commerce/erp-contracts';
import { InvalidUpsertError } from './catalog.errors';
import type { CatalogRepository } from './catalog.repository';
import { minorDigits, parseMinorUnits } from './money';
import type { Pricelist, PricelistItem } from './product';
import { deepEqual, FieldErrors, pick, productUpsertedEvents, type ApplyEntityResult } from './upsert.helpers';

interface GivenPrice {
  productExternalId: string;
  variationExternalId: string;
  price: number | undefined;
  priceBeforeDiscount: number | undefined;
}

const keyOf = (row: { productExternalId: string; variationExternalId: string }) =>
  `${row.productExternalId}\u0000${row.variationExternalId}`;

/**
 * `pricelists_Update`: the pricelist (currency, description) and the prices it lists, product level
 * (`price`, `priceb`) and variation level (`variation.price`, `variation.priceb`). Prices are kept by
 * the ERP's product and variation ids, so a price may arrive before its product. Listed prices are added
 * or updated (a field left out keeps its value), unlisted ones kept. Every product whose price changed
 * (all of the pricelist's when its currency changes) is published again in the same transaction.
 */
export async function applyPricelistUpsert(deps: { catalog: CatalogRepository }, soap: SoapPricelist): Promise<ApplyEntityResult> {
  const externalId = soap.id.trim();
  return deps.catalog.transaction(async (uow) => {
    const before = await uow.prices.findPricelist(externalId);
    const pricelist: Pricelist = {
      externalId,
      store: pick(soap.store, before?.store, ''),
      type: pick(soap.type, before?.type, ''),
      currency: pick(soap.currency?.trim().toUpperCase(), before?.currency, ''),
      description: pick(soap.description, before?.description, ''),
    };
    const given = parsePrices(soap, minorDigits(pricelist.currency));
    const toSave = new Map<string, PricelistItem>();
    let current: PricelistItem[];
    if (before && before.currency !== pricelist.currency) {
      // Stored amounts are minor units of the old currency: restate them all in the new one's.
      current = rescale(await uow.prices.items(externalId), minorDigits(before.currency), minorDigits(pricelist.currency));
      for (const row of current) toSave.set(keyOf(row), row);
    } else {
      current = await uow.prices.items(externalId, [...new Set(given.map((g) => g.productExternalId))]);
    }
    const rowsByKey = new Map(current.map((r) => [keyOf(r), r]));
    for (const g of given) {
      const prior = rowsByKey.get(keyOf(g));
      const price = g.price ?? prior?.price;
      if (price === undefined) continue; // a priceb alone, for a price never given: nothing to sell at
      const row: PricelistItem = {
        pricelist: externalId,
        productExternalId: g.productExternalId,
        variationExternalId: g.variationExternalId,
        price,
        priceBeforeDiscount: g.priceBeforeDiscount ?? prior?.priceBeforeDiscount ?? null,
      };
      if (prior && deepEqual(prior, row)) continue;
      rowsByKey.set(keyOf(g), row);
      toSave.set(keyOf(g), row);
    }

    const headerChanged = !before || !deepEqual(before, pricelist);
    if (!headerChanged && toSave.size === 0) return { changed: false, affectedProducts: 0 };
    if (headerChanged) await uow.prices.savePricelist(pricelist);
    if (toSave.size > 0) await uow.prices.saveItems([...toSave.values()]);
    const affected = new Set([...toSave.values()].map((r) => r.productExternalId));
    const events = productUpsertedEvents(await uow.products.keysOf([...affected]));
    await uow.outbox.publish(events);
    return { changed: true, affectedProducts: events.length };
  });
}

/** The prices of the entity in minor units; a malformed amount fails the whole pricelist, naming it. */
function parsePrices(soap: SoapPricelist, digits: number): GivenPrice[] {
  const errors = new FieldErrors();
  const amount = (path: string, value: string | undefined): number | undefined => {
    if (value === undefined || value.trim() === '') return undefined;
    const minor = parseMinorUnits(value, digits);
    if (minor === null) errors.add(path, `must be an amount ≥ 0 with at most ${digits} decimals`);
    return minor ?? undefined;
  };
  const given: GivenPrice[] = [];
  for (const [i, entry] of (soap.items ?? []).entries()) {
    const productExternalId = entry.id.trim();
    const price = amount(`items.${i}.price`, entry.price);
    const priceb = amount(`items.${i}.priceb`, entry.priceb);
    if (price !== undefined || priceb !== undefined) {
      given.push({ productExternalId, variationExternalId: '', price, priceBeforeDiscount: priceb });
    }
    if (entry.variation && entry.variation.id.trim() !== '') {
      given.push({
        productExternalId,
        variationExternalId: entry.variation.id.trim(),
        price: amount(`items.${i}.variation.price`, entry.variation.price),
        priceBeforeDiscount: amount(`items.${i}.variation.priceb`, entry.variation.priceb),
      });
    }
  }
  if (errors.any) throw new InvalidUpsertError('pricelist', errors.fields);
  return given;
}

function rescale(rows: PricelistItem[], from: number, to: number): PricelistItem[] {
  if (from === to) return rows;
  const scale = (minor: number): number => {
    if (to > from) return minor * 10 ** (to - from);
    const factor = 10 ** (from - to);
    if (minor % factor !== 0) {
      throw new InvalidUpsertError('pricelist', { currency: `its prices have more decimals than the new currency allows (${to})` });
    }
    return minor / factor;
  };
  return rows.map((r) => ({
    ...r,
    price: scale(r.price),
    priceBeforeDiscount: r.priceBeforeDiscount === null ? null : scale(r.priceBeforeDiscount),
  }));
}
