import { StatementNames } from './prepared-statements';

/** A pg client as `StatementNames` reads it: the names its connection prepared. */
const client = () => ({ connection: { parsedStatements: {} as Record<string, string> } });
/** Runs `text` on `on` as the engine does: named when a name is given, which the connection then holds. */
const run = (names: StatementNames, on: ReturnType<typeof client>, text: string) => {
  const name = names.nameFor(on, text);
  if (name !== undefined) on.connection.parsedStatements[name] = text;
  return name;
};

describe('StatementNames (decision 179)', () => {
  it('tells once a connection, at warn, that it holds its most names, counting those named before a stale plan', () => {
    const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const names = new StatementNames(
      { maxTextLength: 4096, perConnection: 3 },
      { warn: (fields, message) => warnings.push({ fields, message }) },
    );
    const one = client();
    const a = run(names, one, 'select $1::int as a');
    run(names, one, 'select $1::int as b');
    // A stale plan: every text gets a name of the next generation; the old ones stay on the connection.
    names.stale(a!);
    expect(run(names, one, 'select $1::int as a')).not.toBe(a);
    expect(warnings).toEqual([]);

    expect(run(names, one, 'select $1::int as c')).toBeUndefined();
    expect(run(names, one, 'select $1::int as d')).toBeUndefined();
    expect(warnings).toEqual([
      {
        fields: { preparedStatements: 3, ofOlderGenerations: 2, perConnection: 3 },
        message: expect.stringContaining('a connection holds 3 prepared statements, the most it may (2 of them named before a stale plan'),
      },
    ]);
    // What it holds still runs by its name; another connection is told of on its own.
    expect(run(names, one, 'select $1::int as a')).toBeDefined();
    const other = client();
    for (const text of ['w', 'x', 'y', 'z']) run(names, other, `select $1::int as ${text}`);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]!.fields).toEqual({ preparedStatements: 3, ofOlderGenerations: 0, perConnection: 3 });
  });
});
