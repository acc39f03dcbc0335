import { Agent, request } from 'undici';
import { DomainError } from '@commerce/shared-errors';
import { currentRequestId, REQUEST_ID_HEADER } from '@commerce/shared-logging';

/** One JSON call to a service's internal HTTP API: the parsed body, or null for a 404. */
export type InternalCall = <T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) => Promise<T | null>;

/**
 * The plumbing of every typed HTTP client of a service's contracts (DESIGN §2): keep-alive, the
 * request id passed on, and the callee's `errors` turned back into a DomainError. A callee that does
 * not answer, or answers 5xx, is `unavailable` (503 at the edge), never an unexplained 500.
 */
export function createInternalCaller(baseUrl: string, service: string): InternalCall {
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  const code = `${service.toUpperCase()}.REMOTE_ERROR`;
  return async <T>(method: string, path: string, body?: unknown): Promise<T | null> => {
    const requestId = currentRequestId();
    let statusCode: number;
    let text: string;
    try {
      const res = await request(new URL(path, baseUrl), {
        method: method as 'GET',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      statusCode = res.statusCode;
      text = await res.body.text();
    } catch (error) {
      throw new DomainError(code, 'unavailable', { [service]: `unavailable (${(error as { code?: string }).code ?? 'no answer'})` });
    }
    if (statusCode === 404) return null;
    let json: (T & { errors?: Record<string, string>; code?: string }) | undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (statusCode >= 400 || json === undefined) {
      throw new DomainError(
        json?.code ?? code,
        statusCode === 400 ? 'invalid' : 'unavailable',
        json?.errors ?? { [service]: `answered ${statusCode}` },
      );
    }
    return json;
  };
}
