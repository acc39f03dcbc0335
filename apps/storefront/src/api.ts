/**
 * The checkout API as a published storefront calls it: JSON over `fetch`, the session token kept in
 * localStorage and sent in `API-Token`, and whatever token the latest answer carries kept (login and logout
 * may give a new one, or keep it). Nothing here knows a private route.
 */

const TOKEN_KEY = 'demo-shop.api-token';

export type Json = Record<string, unknown>;

/** An answer with `errors` (4xx), kept whole: a 410's `unavailable` and selection ride along. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Json & { errors: Record<string, string> },
  ) {
    super(`${status}: ${JSON.stringify(body.errors)}`);
  }
  get errors(): Record<string, string> {
    return this.body.errors;
  }
}

/** The server or the network failed (5xx, 503 with Retry-After, no answer): the visitor may try again. */
export class UnavailableError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterSeconds: number | null,
  ) {
    super(status ? `the shop answered ${status}` : 'the shop could not be reached');
  }
}

function apiBase(): string {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="checkout-api"]')?.content || '/api/checkout/';
  return new URL(meta.endsWith('/') ? meta : `${meta}/`, location.href).href;
}

export function storedToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

function keepToken(token: string | null | undefined): void {
  if (!token) return;
  try {
    localStorage.setItem(TOKEN_KEY, token);
  } catch {
    // Private mode without storage: the token lives as long as the page.
  }
}

/** Calls `path` (relative to the checkout API) and answers the JSON body; throws ApiError or UnavailableError. */
export async function api<T = Json>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = storedToken();
  if (token) headers['API-Token'] = token;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(new URL(path, apiBase()), {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    throw new UnavailableError(0, null);
  }
  keepToken(response.headers.get('API-Token'));
  if (response.status >= 500) {
    const retry = Number(response.headers.get('Retry-After'));
    throw new UnavailableError(response.status, Number.isFinite(retry) && retry > 0 ? retry : null);
  }
  let parsed: Json;
  try {
    parsed = (await response.json()) as Json;
  } catch {
    throw new UnavailableError(response.status, null);
  }
  if (typeof parsed['token'] === 'string') keepToken(parsed['token']);
  if (parsed['errors'] && typeof parsed['errors'] === 'object')
    throw new ApiError(response.status, parsed as Json & { errors: Record<string, string> });
  return parsed as T;
}
