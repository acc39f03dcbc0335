/** Routes live in the hash (`#/product/12?x=1`), so any static web server can serve the shop. */
export function currentRoute(): { parts: string[]; query: URLSearchParams } {
  const hash = location.hash.replace(/^#\/?/, '');
  const at = hash.indexOf('?');
  const path = at < 0 ? hash : hash.slice(0, at);
  const search = at < 0 ? '' : hash.slice(at + 1);
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(search) };
}

/** Opens a route; the same route again draws it again. */
export function go(path: string): void {
  if (location.hash === path) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = path;
}
