import { logLevel } from 'kafkajs';
import pino from 'pino';
import { pinoLogCreator } from './kafka-support';

/** kafkajs's lines through the bus's log creator: the level each lands at. */
function logged(entries: Array<{ level: logLevel; message: string }>): Array<{ level: number; msg: string }> {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
  const log = pinoLogCreator(logger)();
  for (const { level, message } of entries) log({ namespace: 'Producer', level, label: '', log: { message, timestamp: '' } });
  return lines.map(({ level, msg }) => ({ level, msg }));
}

describe('kafkajs lines in the services’ log', () => {
  it('keeps a send kafkajs retries out of the error level: only a publish whose retries all fail is one', () => {
    expect(
      logged([
        { level: logLevel.ERROR, message: 'Failed to send messages: This server is not the leader for that topic-partition' },
        { level: logLevel.WARN, message: 'Limiting retries for the idempotent producer may invalidate EoS guarantees' },
        { level: logLevel.ERROR, message: 'Connection timeout' },
        { level: logLevel.WARN, message: 'The group is rebalancing, re-joining' },
      ]),
    ).toEqual([
      { level: 20, msg: 'Failed to send messages: This server is not the leader for that topic-partition' },
      { level: 20, msg: 'Limiting retries for the idempotent producer may invalidate EoS guarantees' },
      { level: 50, msg: 'Connection timeout' },
      { level: 40, msg: 'The group is rebalancing, re-joining' },
    ]);
  });
});
