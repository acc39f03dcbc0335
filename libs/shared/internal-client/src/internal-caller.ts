import { Agent, request } from 'undici';
import { DomainError, statusOfKind, type ErrorKind } from '@commerce/shared-errors';
import { currentRequestId, REQUEST_ID_HEADER } from '@commerce/shared-logging';

const KIND_OF_STATUS = new Map(Object.entries(statusOfKind).map(([kind, status]) => [status, kind as ErrorKind]));

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
    let json: (T & { errors?: Record<string, string>; code?: string }) | undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    // A bare 404 is "no such thing"; a 404 carrying a domain code is the callee's error (e.g. an unknown line).
    if (statusCode === 404 && !json?.code) return null;
    if (statusCode >= 400 || json === undefined) {
      throw new DomainError(
        json?.code ?? code,
        statusCode < 500 && json?.errors ? (KIND_OF_STATUS.get(statusCode) ?? 'invalid') : 'unavailable',
        json?.errors ?? { [service]: `answered ${statusCode}` },
      );
    }
    return json;
  };
}
