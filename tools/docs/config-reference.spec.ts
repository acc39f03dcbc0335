import { configVariables, currentReference, PAGE, referenceRows, REGENERATE_COMMAND, renderConfigReference } from './config-reference';

// docs/configuration.md is generated from the services' config schemas: a variable added, removed or changed
// without regenerating the page fails here, and the message says what to run.
describe('the configuration reference (docs/configuration.md)', () => {
  it('has a description for every variable of every service', () => {
    const missing = configVariables().filter((v) => !v.description);
    if (missing.length)
      throw new Error(
        `${missing.length} variable(s) without a description: ${missing.map((v) => `${v.name} (${v.service})`).join(', ')}.\n` +
          `Add .describe('what it does, its unit, what empty or 0 means') where the variable's schema is written ` +
          `(apps/<service>/src/config.ts, libs/shared/config or the library's *.env.ts), then run \`${REGENERATE_COMMAND}\`.`,
      );
  });

  it('is what the schemas generate', () => {
    const page = currentReference();
    const expected = renderConfigReference();
    if (page === expected) return;
    const documented = new Map(
      page
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .map((line) => [/^\| `([^`]+)`/.exec(line)![1]!, line] as const),
    );
    const rows = referenceRows();
    const added = [...rows.keys()].filter((name) => !documented.has(name));
    const removed = [...documented.keys()].filter((name) => !rows.has(name));
    const changed = [...rows.keys()].filter((name) => documented.has(name) && documented.get(name) !== rows.get(name));
    throw new Error(
      `${PAGE} is out of date with the services' config schemas: run \`${REGENERATE_COMMAND}\` and commit ${PAGE}.\n` +
        [
          added.length ? `  not on the page: ${added.join(', ')}` : '',
          removed.length ? `  on the page but read by no service: ${removed.join(', ')}` : '',
          changed.length ? `  changed (services, default or description): ${changed.join(', ')}` : '',
          added.length + removed.length + changed.length === 0 ? '  (the text around the table differs)' : '',
        ]
          .filter(Boolean)
          .join('\n'),
    );
  });
});
