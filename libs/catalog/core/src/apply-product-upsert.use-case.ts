import type { Ref, SoapProduct } from '@commerce/backoffice-contracts';
import { ProductUpserted } from '@commerce/catalog-contracts';
import { InvalidProductError } from './catalog.errors';
import { systemClock, type CatalogRepository, type CatalogUnitOfWork, type Clock } from './catalog.repository';
import {
  isVisibleStatus,
  itemIdOf,
  type CatalogRef,
  type Item,
  type MediaImage,
  type Product,
  type RefKind,
  type Variant,
} from './product';
import { slugify, uniqueSlug } from './slug';

export interface ApplyUpsertDeps {
  catalog: CatalogRepository;
  clock?: Clock;
}

export interface ApplyUpsertResult {
  productId: number;
  /** False when the upsert changed nothing (a redelivery or a repeated SOAP call): no event then. */
  changed: boolean;
}

/**
 * Applies one product from the ERP: resolves its brand, collection and categories, merges it into the
 * stored product (fields the ERP leaves out keep their value; variations and sizes it names are added or
 * updated, the others kept), and records `ProductUpserted` in the same transaction when anything changed.
 */
export async function applyProductUpsert(deps: ApplyUpsertDeps, soap: SoapProduct): Promise<ApplyUpsertResult> {
  const numbers = parseNumbers(soap);
  const now = (deps.clock ?? systemClock).now().toISOString();
  return deps.catalog.transaction(async (uow) => {
    const existing = await uow.findProductByExternalId(soap.id);
    const refs = { changed: false };
    const brandId = await resolveRefId(uow, 'brand', soap.brand, existing?.brandId ?? null, refs);
    const collectionId = await resolveRefId(uow, 'collection', soap.collection, existing?.collectionId ?? null, refs);
    const categoryId = await resolveRefId(uow, 'category', soap.folder, existing?.categoryId ?? null, refs);

    const meta = soap.metadata?.storemeta;
    const name = pick(soap.description?.trim(), existing?.name, soap.id);
    const product: Product = {
      id: existing?.id ?? (await uow.nextProductId()),
      externalId: soap.id,
      name,
      sku: pick(soap.sku, existing?.sku, ''),
      status: pick(soap.status, existing?.status, ''),
      visible: soap.status === undefined ? (existing?.visible ?? true) : isVisibleStatus(soap.status),
      description: pick(meta?.description, existing?.description, ''),
      excerpt: pick(meta?.shortdescription, existing?.excerpt, ''),
      metaTitle: pick(meta?.metatitle, existing?.metaTitle, ''),
      metaDescription: pick(meta?.metadescription, existing?.metaDescription, ''),
      metaKeywords: pick(meta?.metakeywords, existing?.metaKeywords, ''),
      countryOfOrigin: pick(soap.countryoforigin, existing?.countryOfOrigin, ''),
      harmCode: pick(soap.harmcode?.id, existing?.harmCode, ''),
      brandId,
      collectionId,
      categoryId,
      media: soap.media ? mediaOf(soap) : (existing?.media ?? []),
      variants: [],
      createdAt: existing?.createdAt ?? now,
      modifiedAt: existing?.modifiedAt ?? now,
    };

    const variants = new Map((existing?.variants ?? []).map((v) => [v.externalId, v]));
    for (const [vi, soapVariant] of (soap.variations ?? []).entries()) {
      const before = variants.get(soapVariant.id);
      const categoryIds = new Set(before?.categoryIds ?? []);
      for (const d of soapVariant.displays ?? []) {
        for (const ref of d.categories ?? []) {
          const id = await resolveRefId(uow, 'category', ref, null, refs);
          if (id !== null) categoryIds.add(id);
        }
        for (const ref of d.categoriesremove ?? []) {
          const found = await uow.findRef('category', ref.id);
          if (found) categoryIds.delete(found.id);
        }
      }
      const variant: Variant = {
        id: before?.id ?? (await uow.nextVariantId()),
        externalId: soapVariant.id,
        name: pick(soapVariant.description?.trim(), before?.name, ''),
        sku: pick(soapVariant.sku, before?.sku, ''),
        status: pick(soapVariant.status, before?.status, ''),
        visible: soapVariant.status === undefined ? (before?.visible ?? true) : isVisibleStatus(soapVariant.status),
        uri: before?.uri ?? '',
        position: before?.position ?? variants.size,
        categoryIds: [...categoryIds].sort((a, b) => a - b),
        itemQuantityMinimum: numbers.get(`variations.${vi}.displays.0.minimumorderamount`) ?? before?.itemQuantityMinimum ?? 1,
        itemQuantityMultipleOf: numbers.get(`variations.${vi}.displays.0.orderdenominator`) ?? before?.itemQuantityMultipleOf ?? 1,
        items: before?.items ?? [],
      };
      const items = new Map(variant.items.map((i) => [i.sizeExternalId, i]));
      for (const [si, soapSize] of (soapVariant.sizes ?? []).entries()) {
        const path = `variations.${vi}.sizes.${si}`;
        const size = await resolveSize(uow, soapSize.id, soapSize.description);
        const prior = items.get(soapSize.id);
        const item: Item = {
          id: itemIdOf(variant.id, size.id),
          sizeId: size.id,
          sizeExternalId: soapSize.id,
          sizeName: size.name,
          sku: pick(soapSize.sku, prior?.sku, ''),
          ean: pick(soapSize.ean, prior?.ean, ''),
          stock: numbers.get(`${path}.stock`) ?? prior?.stock ?? 0,
          preorder: soapSize.preorder === undefined ? (prior?.preorder ?? false) : isYes(soapSize.preorder),
          position: prior?.position ?? items.size,
        };
        items.set(soapSize.id, item);
      }
      variant.items = [...items.values()].sort((a, b) => a.position - b.position);
      variants.set(variant.externalId, variant);
    }
    product.variants = [...variants.values()].sort((a, b) => a.position - b.position);
    // The primary variant's URI is the product name's slug; others add their variant name.
    const assigned = new Set<string>();
    for (const variant of product.variants) {
      const base = slugify(variant.position === 0 || !variant.name ? product.name : `${product.name} ${variant.name}`);
      const current = assigned.has(variant.uri) ? null : variant.uri;
      variant.uri = await uniqueSlug(base, current, async (uri) => assigned.has(uri) || (await uow.variantUriTaken(uri, variant.id)));
      assigned.add(variant.uri);
    }

    const changed = refs.changed || !existing || !sameProduct(existing, product);
    if (!changed) return { productId: product.id, changed: false };
    product.modifiedAt = now;
    await uow.saveProduct(product);
    await uow.publish([ProductUpserted.create(String(product.id), { productId: String(product.id), externalId: product.externalId })]);
    return { productId: product.id, changed: true };
  });
}

const pick = <T>(given: T | undefined, existing: T | undefined, fallback: T): T =>
  given !== undefined && given !== '' ? given : (existing ?? fallback);

const isYes = (value: string): boolean => ['1', 'true', 'yes'].includes(value.trim().toLowerCase());

const sameProduct = (a: Product, b: Product): boolean => deepEqual({ ...a, modifiedAt: '' }, { ...b, modifiedAt: '' });

/** Structural equality of plain data (key order ignored: a product loaded from the store lists its keys in another order). */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function mediaOf(soap: SoapProduct): MediaImage[] {
  return (soap.media ?? []).filter((m) => m.image).map((m) => ({ url: m.image!, variantExternalId: m.variation?.id ?? null }));
}

/**
 * The numbers of a SOAP product (every SOAP scalar is a string), checked before anything is written:
 * one that is not a whole number makes the event poison, so it fails loudly instead of storing garbage.
 */
function parseNumbers(soap: SoapProduct): Map<string, number> {
  const numbers = new Map<string, number>();
  const errors: Record<string, string> = {};
  const parse = (path: string, value: string | undefined): number | undefined => {
    if (value === undefined || value.trim() === '') return undefined;
    const n = Number(value.trim());
    if (!Number.isFinite(n) || !Number.isInteger(n)) {
      errors[path] = 'must be a whole number';
      return undefined;
    }
    return n;
  };
  for (const [vi, v] of (soap.variations ?? []).entries()) {
    const d = v.displays?.[0];
    for (const field of ['minimumorderamount', 'orderdenominator'] as const) {
      const n = parse(`variations.${vi}.displays.0.${field}`, d?.[field]);
      if (n !== undefined) numbers.set(`variations.${vi}.displays.0.${field}`, Math.max(1, n));
    }
    for (const [si, s] of (v.sizes ?? []).entries()) {
      const path = `variations.${vi}.sizes.${si}`;
      // Stock is the sum over warehouses when the ERP gives them, else the size's own qty.
      const perWarehouse = (s.warehouseitems ?? []).map((w, wi) => parse(`${path}.warehouseitems.${wi}.qty`, w.qty));
      const stock =
        s.warehouseitems && s.warehouseitems.length > 0
          ? perWarehouse.reduce<number>((sum, q) => sum + (q ?? 0), 0)
          : parse(`${path}.qty`, s.qty);
      if (stock !== undefined) numbers.set(`${path}.stock`, stock);
    }
  }
  if (Object.keys(errors).length > 0) throw new InvalidProductError(errors);
  return numbers;
}

/** Finds or creates a brand/collection/category; a new description renames it (and re-derives its URI). */
async function resolveRefId(
  uow: CatalogUnitOfWork,
  kind: RefKind,
  ref: Ref | undefined,
  current: number | null,
  refs: { changed: boolean },
): Promise<number | null> {
  if (!ref) return current;
  if (ref.id.trim() === '') return null;
  const existing = await uow.findRef(kind, ref.id);
  const name = pick(ref.description?.trim(), existing?.name, ref.id);
  if (existing && existing.name === name) return existing.id;
  const uri = await uniqueSlug(slugify(name), existing && slugify(existing.name) === slugify(name) ? existing.uri : null, (u) =>
    uow.refUriTaken(kind, u, existing?.id ?? null),
  );
  const saved: CatalogRef = await uow.saveRef(kind, { id: existing?.id ?? null, externalId: ref.id, name, uri });
  refs.changed = true;
  return saved.id;
}

async function resolveSize(uow: CatalogUnitOfWork, externalId: string, description: string | undefined) {
  const existing = await uow.findSize(externalId);
  const name = pick(description?.trim(), existing?.name, externalId);
  if (existing && existing.name === name) return existing;
  return uow.saveSize({ id: existing?.id ?? null, externalId, name });
}
