import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import pino from 'pino';
import { DEFAULT_SOAP_NAMESPACE, DEFAULT_SOAP_PATH } from '@commerce/backoffice-contracts';
import type { LoginThrottle, PasswordHasher, SoapUser } from '@commerce/backoffice-core';
import { createScryptPasswordHasher, hashPassword } from '../scrypt.password-hasher';
import { createMemoryBus, type EventEnvelope, type MemoryBus } from '@commerce/shared-bus';
import type { Db, DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { buildBackofficeService, type BackofficeService, type BackofficeServiceDeps } from '../backoffice.service';
import { readReceivedUpserts } from '../received-upserts.store';
import { SPEC_OPERATIONS } from '../soap/soap-operations';
import { soapHeaders, soapRequest } from './soap-request';

/** The back-office service on a fresh schema of `engine`, served on port 0, for tests through the SOAP interface. */
export interface SoapServiceHarness {
  db: Db;
  bus: MemoryBus;
  service: BackofficeService;
  url: string;
  /** Posts `inner` (the operation's parameters) as user `erp` / `s3cret`, in the operation's request element, with its SOAPAction. */
  call(op: string, inner: string): Promise<{ status: number; headers: Headers; body: string }>;
  /** What the service kept: received entities in order, and their outbox envelopes. */
  rows(): Promise<{ received: Record<string, unknown>[]; outbox: EventEnvelope[] }>;
  close(): Promise<void>;
}

export const HARNESS_USER = { username: 'erp', password: 's3cret' } as const;

/** Cheap scrypt for tests through the SOAP interface: each login of a fresh service hashes once. */
export const TEST_SCRYPT_PARAMS = { N: 2 ** 10, r: 8, p: 1 };

/** A password hash with TEST_SCRYPT_PARAMS. */
export const testPasswordHash = (password: string): Promise<string> => hashPassword(password, TEST_SCRYPT_PARAMS);

export interface SoapServiceOptions {
  /** More users beside HARNESS_USER. */
  users?: SoapUser[];
  loginThrottle?: LoginThrottle;
  /** Default: scrypt with TEST_SCRYPT_PARAMS (hashes made with other parameters still verify, at their cost). */
  hasher?: PasswordHasher;
  /** Start the relay and the change-event consumer (default false: tests read the outbox table). */
  start?: boolean;
  events?: BackofficeServiceDeps['events'];
  /** Entities handed to the store at a time while a batch is parsed; 0: parsed whole first (decision 91). */
  streamPartSize?: number;
}

export async function startSoapService(
  engine: DbEngine,
  passwordHash: string,
  options: SoapServiceOptions = {},
): Promise<SoapServiceHarness> {
  const db = engine.forSchema(uniqueName('bo'));
  const bus = createMemoryBus();
  const service = await buildBackofficeService({
    db,
    bus,
    logger: pino({ level: 'silent' }),
    namespace: DEFAULT_SOAP_NAMESPACE,
    users: [{ username: HARNESS_USER.username, passwordHash }, ...(options.users ?? [])],
    ...(options.events ? { events: options.events } : {}),
    ...(options.streamPartSize !== undefined ? { streamPartSize: options.streamPartSize } : {}),
    ...(options.loginThrottle ? { loginThrottle: options.loginThrottle } : {}),
    hasher: options.hasher ?? createScryptPasswordHasher({ params: TEST_SCRYPT_PARAMS }),
  });
  if (options.start) await service.start();
  const app = new Koa();
  app.use(service.router.routes());
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${DEFAULT_SOAP_PATH}`;
  return {
    db,
    bus,
    service,
    url,
    async call(op, inner) {
      // The Body's element is the spec's request element (events_GetRequest for events_Get).
      const element = SPEC_OPERATIONS.find((o) => o.name === op)?.request ?? op;
      const res = await fetch(url, { method: 'POST', headers: soapHeaders(op), body: soapRequest(element, inner, HARNESS_USER) });
      return { status: res.status, headers: res.headers, body: await res.text() };
    },
    async rows() {
      const received = (await readReceivedUpserts(db)).upserts as unknown as Record<string, unknown>[];
      const outbox = (await db.table('outbox').select('*').orderBy('seq')) as { envelope: unknown }[];
      return {
        received,
        outbox: outbox.map((r) => (typeof r.envelope === 'string' ? JSON.parse(r.envelope) : r.envelope) as EventEnvelope),
      };
    },
    async close() {
      await service.stop();
      await new Promise((r) => server.close(r));
      await bus.close();
    },
  };
}
