import type { MemoryBus, OutboxRelay } from '@commerce/shared-bus';

/** Waits until the bus is drained and the outbox has nothing left to publish (events cascade: upsert → outbox → indexer). */
export async function settle(bus: MemoryBus, relay: OutboxRelay): Promise<void> {
  for (let round = 0; round < 20; round++) {
    await bus.drain();
    if ((await relay.flush()) === 0) {
      await bus.drain();
      return;
    }
  }
  throw new Error('settle: events kept coming after 20 rounds');
}
