import type { CategoryNode } from '@commerce/shared-config';
import type { CatalogRepository } from './catalog.repository';
import type { Category } from './product';
import { slugify, uniqueSlug } from './slug';
import { deepEqual, productUpsertedEvents } from './upsert.helpers';

/**
 * Brings the `categories` table in line with the store configuration's tree, at start: configured
 * categories get their name, parent and position from it (whatever the ERP called them), and a URI of
 * the full path of slugs (`women/tops/shirts`, `-2`… among siblings of one name). Categories the
 * configuration does not list (created from the ERP's refs) move to the top level after the configured
 * ones, in their order. Products in a category whose name or URI changed are published again, in the
 * same transaction.
 */
export async function syncCategories(
  deps: { catalog: CatalogRepository },
  tree: CategoryNode[],
): Promise<{ changed: number; affectedProducts: number }> {
  return deps.catalog.transaction(async (uow) => {
    const existing = await uow.categories.list();
    const byExternalId = new Map(existing.map((c) => [c.externalId, c]));
    const desired: Category[] = [];

    const place = async (nodes: CategoryNode[], parent: Category | null) => {
      const siblings = new Set<string>();
      for (const [position, node] of nodes.entries()) {
        const before = byExternalId.get(node.category);
        const current = before ? lastSegment(before.uri) : null;
        const slug = await uniqueSlug(slugify(node.name), current && !siblings.has(current) ? current : null, async (s) => siblings.has(s));
        siblings.add(slug);
        const category: Category = {
          id: before?.id ?? (await uow.categories.nextId()),
          externalId: node.category,
          name: node.name,
          uri: parent ? `${parent.uri}/${slug}` : slug,
          parentId: parent?.id ?? null,
          position,
          configured: true,
          namePath: [...(parent?.namePath ?? []), node.name],
        };
        desired.push(category);
        await place(node.children ?? [], category);
      }
      return siblings;
    };
    const topLevel = await place(tree, null);

    const configured = new Set(desired.map((c) => c.externalId));
    const others = existing
      .filter((c) => !configured.has(c.externalId))
      .sort((a, b) => Number(a.configured) - Number(b.configured) || a.position - b.position || a.id - b.id);
    for (const [rank, c] of others.entries()) {
      const current = c.parentId === null ? c.uri : lastSegment(c.uri);
      const slug = await uniqueSlug(slugify(c.name), !topLevel.has(current) ? current : null, async (s) => topLevel.has(s));
      topLevel.add(slug);
      desired.push({ ...c, uri: slug, parentId: null, position: tree.length + rank, configured: false, namePath: [c.name] });
    }

    const byId = new Map(existing.map((c) => [c.id, c]));
    const changed = desired.filter((c) => !deepEqual(byId.get(c.id), c));
    if (changed.length === 0) return { changed: 0, affectedProducts: 0 };
    await uow.categories.save(changed);
    const shown = (c: Category) => ({ uri: c.uri, namePath: c.namePath, parentId: c.parentId });
    const renamed = changed
      .filter((c) => {
        const before = byId.get(c.id);
        return before !== undefined && !deepEqual(shown(before), shown(c));
      })
      .map((c) => c.id);
    const events = productUpsertedEvents(renamed.length > 0 ? await uow.products.keysInCategories(renamed) : []);
    await uow.outbox.publish(events);
    return { changed: changed.length, affectedProducts: events.length };
  });
}

const lastSegment = (uri: string): string => uri.slice(uri.lastIndexOf('/') + 1);
