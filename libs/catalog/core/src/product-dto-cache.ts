import type { ProductDto } from '@commerce/catalog-contracts';
import type { ProductView, Variant } from './product';
import type { Projection } from './product.mapper';

/**
 * When a variant's projection may next change by time alone (decision 58): the product stops being new
 * (`newProduct`), or a delivery window of the variant opens or closes (`inStock`, `stock`). Infinity when
 * nothing of it depends on time any more.
 */
export function projectionChangesAt(view: ProductView, variant: Variant, p: Projection): number {
  const now = p.now.getTime();
  let next = Infinity;
  const consider = (at: number) => {
    if (Number.isFinite(at) && at > now && at < next) next = at;
  };
  consider(Date.parse(view.product.createdAt) + p.settings.newProductDays * 24 * 3600 * 1000);
  for (const window of view.deliveryWindows) {
    if (window.variationExternalId !== variant.externalId) continue;
    if (window.startsAt !== null) consider(Date.parse(window.startsAt));
    // Active through its stop instant: it closes a millisecond after.
    if (window.stopsAt !== null) consider(Date.parse(window.stopsAt) + 1);
  }
  return next;
}

interface Kept {
  from: number;
  until: number;
  dto: ProductDto;
}

/**
 * The listing's product DTOs, kept with the view they were projected from: a view is the same object for
 * as long as the listing's read cache keeps it (decision 58), so a DTO lives exactly as long as its view,
 * and is projected again once time changes it (`projectionChangesAt`). Per context (market, pricelist,
 * language) and form (related products in full or not). The DTOs are shared by every answer that shows
 * them: nobody may change them.
 */
const kept = new WeakMap<ProductView, Map<string, Kept>>();

export function cachedProductDto(
  view: ProductView,
  variant: Variant,
  p: Projection,
  fullRelated: boolean,
  project: () => ProductDto,
): ProductDto {
  const { market = '', pricelist = '', language = '' } = p.context;
  const key = `${variant.id}|${market}|${pricelist}|${language}|${fullRelated ? 1 : 0}`;
  let perView = kept.get(view);
  if (!perView) kept.set(view, (perView = new Map()));
  const now = p.now.getTime();
  const hit = perView.get(key);
  // Within [from, until) nothing time-dependent of the projection changes.
  if (hit && now >= hit.from && now < hit.until) return hit.dto;
  const dto = project();
  perView.set(key, { from: now, until: projectionChangesAt(view, variant, p), dto });
  return dto;
}

/** The UTF-8 JSON of DTOs, made once per DTO object (shared DTOs come back as the same object). */
const jsonOfDto = new WeakMap<object, Buffer>();
const bytesOf = (value: object): Buffer => {
  let bytes = jsonOfDto.get(value);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(value), 'utf8');
    jsonOfDto.set(value, bytes);
  }
  return bytes;
};

/**
 * The UTF-8 JSON of a listing answer (`{products, productCount, filter}`, or a category's `POST uri`
 * answer), its keys in their order: each product's bytes are made once for as long as its DTO is kept
 * and copied, not encoded, into every answer that shows it (the answer's ~60 KB are mostly the page's
 * products, which repeat across requests).
 */
export function listingJson(answer: object): Buffer {
  const parts: Buffer[] = [];
  let first = true;
  for (const [key, value] of Object.entries(answer)) {
    if (value === undefined) continue;
    parts.push(Buffer.from(`${first ? '{' : ','}${JSON.stringify(key)}:`, 'utf8'));
    first = false;
    if (key === 'products' && Array.isArray(value)) {
      parts.push(Buffer.from('['));
      value.forEach((product: unknown, i) => {
        if (i > 0) parts.push(Buffer.from(','));
        parts.push(product !== null && typeof product === 'object' ? bytesOf(product) : Buffer.from(JSON.stringify(product), 'utf8'));
      });
      parts.push(Buffer.from(']'));
    } else parts.push(Buffer.from(JSON.stringify(value), 'utf8'));
  }
  parts.push(Buffer.from(first ? '{}' : '}'));
  return Buffer.concat(parts);
}
