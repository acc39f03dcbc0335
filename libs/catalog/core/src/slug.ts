/** Folds diacritics and case the way search does: `Café` → `cafe` (NFD, combining marks stripped, lower case). */
export function foldText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/**
 * A URL slug of a name: diacritics folded, letters and digits of any script kept, everything else a single
 * hyphen. `Café Sweater` → `cafe-sweater`, `Платье` → `платье`. Empty when the name has no letter or digit.
 */
export function slugify(name: string): string {
  return foldText(name)
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * A free slug: `base`, else the first free of `base-2`, `base-3`, …, or, given `highestSuffix` (where the
 * taken `base-<n>` end: the n to start after), of those after it: one lookup instead of trying every suffix,
 * which made the k-th product of one name try k of them (decision 92). `taken` decides: the hint only says
 * where to start. Keeps `current` when it already is one of those, so a URI does not change on an update
 * that does not change the name.
 */
export async function uniqueSlug(
  base: string,
  current: string | null | undefined,
  taken: (uri: string) => Promise<boolean>,
  highestSuffix?: (root: string) => Promise<number>,
): Promise<string> {
  const root = base || 'item';
  if (current && (current === root || new RegExp(`^${escapeRegExp(root)}-\\d+$`).test(current))) return current;
  if (!(await taken(root))) return root;
  for (let n = highestSuffix ? Math.max(2, (await highestSuffix(root)) + 1) : 2; ; n++) {
    const candidate = `${root}-${n}`;
    if (!(await taken(candidate))) return candidate;
  }
}

/**
 * The suffixes taken of each stem, noted URI by URI (`t-shirt` is 1, `t-shirt-7` is 7), and where each stem's
 * unbroken run from 1 ends (amortised O(1) a URI): `uniqueSlug`'s hint, for product URIs (a batch's) and
 * brands', collections' and categories' (a stem's stored ones) alike (decisions 92 and 100).
 */
export class SuffixRuns {
  private readonly stems = new Map<string, { taken: Set<number>; end: number }>();

  note(uri: string): void {
    const [stem, n] = slugSuffix(uri);
    let entry = this.stems.get(stem);
    if (!entry) this.stems.set(stem, (entry = { taken: new Set(), end: 0 }));
    entry.taken.add(n);
    while (entry.taken.has(entry.end + 1)) entry.end++;
  }

  /** The highest n with `<stem>`, `<stem>-2` … `<stem>-n` all noted; 0 when `<stem>` is not. */
  end(stem: string): number {
    return this.stems.get(stem)?.end ?? 0;
  }
}

/** A slug's stem and suffix: `t-shirt-12` → [`t-shirt`, 12], `t-shirt` → [`t-shirt`, 1]. */
export function slugSuffix(uri: string): [string, number] {
  const [, stem, n] = /^(.*)-(\d+)$/.exec(uri) ?? [];
  return stem !== undefined ? [stem, Number(n)] : [uri, 1];
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
