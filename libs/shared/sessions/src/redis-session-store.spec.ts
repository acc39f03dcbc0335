import { SessionStoreUnavailableError } from './session-store';
import { RedisSessionStore } from './redis-session-store';

const { ReplyError } = jest.requireActual<typeof import('ioredis')>('ioredis');

/** The turn's script as Redis would answer it: the test says what each turn's EVALSHA answers. */
const mockSessionTurn = jest.fn<Promise<unknown>, unknown[]>();

// A client that connects, answers PING and the tokens' key, and runs the turn's script as `mockSessionTurn` says.
jest.mock('ioredis', () => ({
  __esModule: true,
  default: class {
    options: Record<string, unknown> = {};
    status = 'ready';
    on = () => this;
    off = () => this;
    connect = async () => undefined;
    ping = async () => 'PONG';
    eval = async () => Buffer.alloc(32, 7).toString('base64');
    sendCommand = () => undefined;
    quit = async () => 'OK';
    disconnect = () => undefined;
    defineCommand(name: string) {
      Object.assign(this, { [name]: (...args: unknown[]) => mockSessionTurn(...args) });
    }
  },
}));

describe('redis session store: the answers of a turn’s script (decision 177)', () => {
  let store: RedisSessionStore;
  beforeEach(async () => {
    mockSessionTurn.mockReset();
    store = await RedisSessionStore.connect('redis://127.0.0.1:1', { ttlSeconds: 60, keyPrefix: 's:' });
  });
  afterEach(() => store.close());

  /** Asks for a read, a write, a raise and a window count in one turn, as separate requests' callbacks do. */
  const askTurn = () =>
    [
      store.getWithCounter('t1', 'selectionId', 'selection:'),
      store.set('t2', { country: 'SE' }),
      store.raise('selection:s1'),
      store.windowCount('session-new:1.2.3.4', 60),
    ].map((asked) =>
      asked.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
    );

  it('fails only the command whose Redis command was refused, saying which and why; the others get their answers', async () => {
    mockSessionTurn.mockResolvedValueOnce([
      new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value'),
      'GET',
      1,
      null,
      3,
      null,
      2,
      59_000,
    ]);
    const [read, write, raise, window] = await Promise.all(askTurn());
    expect(mockSessionTurn).toHaveBeenCalledTimes(1);
    expect(mockSessionTurn.mock.calls[0]?.slice(0, 5)).toEqual([4, 's:t1', 's:t2', 's:#:selection:s1', 'session-new:1.2.3.4']);
    expect(read).toEqual({ error: expect.any(SessionStoreUnavailableError) });
    expect((read as { error: Error }).error.message).toBe(
      'session store: redis://127.0.0.1:1 refused a session read (GET: WRONGTYPE Operation against a key holding the wrong kind of value)',
    );
    expect(write).toEqual({ value: undefined });
    expect(raise).toEqual({ value: 3 });
    expect(window).toEqual({ value: { count: 2, msLeft: 59_000 } });
  });

  it('fails every command of the turn when the script fails as a whole', async () => {
    mockSessionTurn.mockRejectedValueOnce(new Error('Connection is closed.'));
    const answers = await Promise.all(askTurn());
    expect(answers).toEqual(Array(4).fill({ error: expect.any(SessionStoreUnavailableError) }));
    for (const answer of answers) expect((answer as { error: Error }).error.message).toMatch(/failed \(Connection is closed\.\)$/);
  });
});
