import { REQUEST_ID_HEADER, currentRequestId } from '@commerce/shared-logging';
import type { EventEnvelope } from '@commerce/shared-events';
import type { EncodedEvent } from './event-bus.port';

/** Message headers of both adapters: readable without parsing the value (tools, DLQ triage). */
export const EVENT_ID_HEADER = 'x-event-id';
export const EVENT_TYPE_HEADER = 'x-event-type';
// The request id travels as `x-request-id` (REQUEST_ID_HEADER of @commerce/shared-logging).
/** Why a message was dead-lettered. */
export const ERROR_HEADER = 'x-error';

export const DEFAULT_MAX_ATTEMPTS = 5;

/** Thrown for a value that is not an envelope: such a message goes straight to the dead-letter topic. */
export class InvalidEnvelopeError extends Error {
  constructor(reason: string) {
    super(`invalid event envelope: ${reason}`);
    this.name = 'InvalidEnvelopeError';
  }
}

/** The envelope to send: one published inside a request carries that request's id. */
export function withCurrentRequestId(envelope: EventEnvelope): EventEnvelope {
  if (envelope.requestId) return envelope;
  const requestId = currentRequestId();
  return requestId ? { ...envelope, requestId } : envelope;
}

export function headersOf(envelope: EventEnvelope): Record<string, string> {
  return {
    [EVENT_ID_HEADER]: envelope.id,
    [EVENT_TYPE_HEADER]: envelope.type,
    ...(envelope.requestId ? { [REQUEST_ID_HEADER]: envelope.requestId } : {}),
  };
}

export const encodeEnvelope = (envelope: EventEnvelope): string => JSON.stringify(envelope);

/** An envelope as both buses put it on the wire: with the current request id, serialised, its headers beside it. */
export function encodedEvent(envelope: EventEnvelope): EncodedEvent {
  const e = withCurrentRequestId(envelope);
  return { topic: e.topic, key: e.key, value: encodeEnvelope(e), headers: headersOf(e) };
}

/** Parses and checks the envelope's own fields; the payload is the consumer's to validate (`EventDefinition.parse`). */
export function decodeEnvelope(raw: string | null | undefined): EventEnvelope {
  if (raw === null || raw === undefined || raw === '') throw new InvalidEnvelopeError('empty message');
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new InvalidEnvelopeError('not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidEnvelopeError('not an object');
  const e = value as Record<string, unknown>;
  for (const field of ['id', 'topic', 'key', 'type', 'occurredAt'] as const) {
    if (typeof e[field] !== 'string' || e[field] === '') throw new InvalidEnvelopeError(`${field} missing`);
  }
  if (typeof e['version'] !== 'number') throw new InvalidEnvelopeError('version missing');
  if (!('payload' in e)) throw new InvalidEnvelopeError('payload missing');
  if (e['requestId'] !== undefined && typeof e['requestId'] !== 'string') throw new InvalidEnvelopeError('requestId not a string');
  return e as unknown as EventEnvelope;
}

export const DEFAULT_MAX_BATCH = 1000;

/**
 * The batch `handleBatch` gets at the start of a partition's pending messages: the envelopes that decode
 * and carry the first one's request id, consecutive, at most `max`. One that does not decode ends it.
 * `acrossRequests` (SubscribeOptions' `batchAcrossRequests`): whatever their request ids.
 */
export function requestBatch<M>(
  messages: M[],
  valueOf: (m: M) => string | null | undefined,
  max: number,
  acrossRequests = false,
): EventEnvelope[] {
  const batch: EventEnvelope[] = [];
  for (const message of messages.slice(0, max)) {
    let envelope: EventEnvelope;
    try {
      envelope = decodeEnvelope(valueOf(message));
    } catch {
      break;
    }
    if (acrossRequests) {
      batch.push(envelope);
      continue;
    }
    if (!envelope.requestId || envelope.requestId !== (batch[0]?.requestId ?? envelope.requestId)) break;
    batch.push(envelope);
  }
  return batch;
}

/** The request id a batch of `requestBatch` shares. */
export const batchRequestId = (batch: EventEnvelope[]): string => batch[0]?.requestId ?? '';

export function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > 1000 ? `${text.slice(0, 997)}...` : text;
}

/** Retry pause after a failed attempt: short, growing, capped. */
export const retryDelayMs = (attempt: number, baseMs: number, maxMs: number): number => Math.min(baseMs * 2 ** (attempt - 1), maxMs);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
