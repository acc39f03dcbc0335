import type { SoapDeliveryWindow } from '@commerce/erp-contracts';
import { InvalidUpsertError } from './catalog.errors';
import { systemClock, type CatalogRepository, type Clock } from './catalog.repository';
import type { DeliveryWindow, DeliveryWindowVariation } from './product';
import { deepEqual, FieldErrors, pick, productUpsertedEvents, type ApplyEntityResult } from './upsert.helpers';
import { isWindowActive } from './visibility';

/**
 * `deliverywindows_Update`: a window and the variations in it (`variations` added or updated,
 * `variationsremove` removed, the others kept). While a window is active (status active, now between its
 * start and stop) its variations can be preordered: their items count as available. Products whose
 * availability may have changed are published again in the same transaction: the variations added or
 * removed, or all of the window's when its status or dates changed.
 */
export async function applyDeliveryWindowUpsert(
  deps: { catalog: CatalogRepository; clock?: Clock },
  soap: SoapDeliveryWindow,
): Promise<ApplyEntityResult> {
  const errors = new FieldErrors();
  const startsAt = errors.date('startdate', soap.startdate, false);
  const stopsAt = errors.date('stopdate', soap.stopdate, true);
  if (errors.any) throw new InvalidUpsertError('deliverywindow', errors.fields);
  const now = (deps.clock ?? systemClock).now();
  const externalId = soap.id.trim();

  return deps.catalog.transaction(async (uow) => {
    const before = await uow.deliveryWindows.find(externalId);
    const variations = new Map((before?.variations ?? []).map((v) => [v.variationExternalId, v]));
    const touched = new Set<string>();
    for (const v of soap.variations ?? []) {
      const id = v.id.trim();
      const prior = variations.get(id);
      const next: DeliveryWindowVariation = {
        variationExternalId: id,
        type: pick(v.type, prior?.type, ''),
        productLimit: v.productlimit ?? prior?.productLimit ?? null,
        variationLimit: v.variationlimit ?? prior?.variationLimit ?? null,
      };
      if (!prior) touched.add(id);
      variations.set(id, next);
    }
    for (const v of soap.variationsremove ?? []) {
      if (variations.delete(v.id.trim())) touched.add(v.id.trim());
    }
    const window: DeliveryWindow = {
      externalId,
      status: pick(soap.status, before?.status, ''),
      description: pick(soap.description, before?.description, ''),
      startsAt: startsAt !== undefined ? startsAt : (before?.startsAt ?? null),
      stopsAt: stopsAt !== undefined ? stopsAt : (before?.stopsAt ?? null),
      atOnce: soap.atonce ?? before?.atOnce ?? false,
      variations: [...variations.values()].sort((a, b) => a.variationExternalId.localeCompare(b.variationExternalId)),
      activeIndexed: false,
    };
    window.activeIndexed = isWindowActive(window, now);
    if (before && deepEqual(before, window)) return { changed: false, affectedProducts: 0 };
    await uow.deliveryWindows.save(window);

    const timing = (w: DeliveryWindow) => ({ status: w.status, startsAt: w.startsAt, stopsAt: w.stopsAt, active: w.activeIndexed });
    if (before && !deepEqual(timing(before), timing(window))) {
      for (const v of [...before.variations, ...window.variations]) touched.add(v.variationExternalId);
    }
    const events = productUpsertedEvents(await uow.products.keysWithVariations([...touched]));
    await uow.outbox.publish(events);
    return { changed: true, affectedProducts: events.length };
  });
}

/**
 * Time opens and closes delivery windows without any upsert: publishes the products of every window
 * whose activity differs from what was last published, and records the new state, in one transaction.
 * Run at start and every minute; idempotent, so several replicas may run it.
 */
export async function refreshDeliveryWindows(deps: {
  catalog: CatalogRepository;
  clock?: Clock;
}): Promise<{ windows: number; affectedProducts: number }> {
  const now = (deps.clock ?? systemClock).now();
  return deps.catalog.transaction(async (uow) => {
    const flipped = (await uow.deliveryWindows.list()).filter((w) => isWindowActive(w, now) !== w.activeIndexed);
    if (flipped.length === 0) return { windows: 0, affectedProducts: 0 };
    for (const w of flipped) await uow.deliveryWindows.setActiveIndexed(w.externalId, !w.activeIndexed);
    const events = productUpsertedEvents(
      await uow.products.keysWithVariations(flipped.flatMap((w) => w.variations.map((v) => v.variationExternalId))),
    );
    await uow.outbox.publish(events);
    return { windows: flipped.length, affectedProducts: events.length };
  });
}
