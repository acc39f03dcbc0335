import {
  currentPage,
  edgeKey,
  edgesFromCode,
  edgesFromPicture,
  PAGE,
  topicDeclarations,
  unmappedApps,
  type Edge,
} from './architecture-graph';

// docs/architecture.md's picture is checked against the code (issue 24): the Kafka topics each service publishes
// and subscribes to, and the internal HTTP clients each service's config asks for. An edge the code has and the
// picture lacks, or the picture has and the code does not, fails here with the edge named.
describe('the architecture picture (docs/architecture.md)', () => {
  it('knows every app as a service or as not one', () => {
    expect(unmappedApps()).toEqual([]);
  });

  it('reads topics, subscriptions and calls from the code', () => {
    const { edges, problems } = edgesFromCode();
    expect(problems).toEqual([]);
    // The extraction finds something of each kind: a regex that stopped matching would make the next test vacuous.
    for (const kind of ['publishes', 'subscribes', 'calls'] as const)
      expect(edges.filter((e) => e.kind === kind).length).toBeGreaterThan(1);
    expect(topicDeclarations().map((d) => d.topic)).toContain('order.order.v1');
  });

  it('reads the first flowchart: services and topics by their labels, edges to anything else left out', () => {
    const page = [
      '```mermaid',
      'stateDiagram-v2',
      '  soap --> t',
      '```',
      '```mermaid',
      'flowchart LR',
      '  erp([ERP])',
      '  soap[backoffice-soap]',
      '  edge[checkout-api<br/>edge]',
      '  t{{"order.order.v1"}}',
      '  erp -->|SOAP| soap',
      '  t --> soap',
      '  edge -->|HTTP| soap',
      '  soap --> t',
      '```',
    ].join('\n');
    expect(edgesFromPicture(page, new Set(['order.order.v1']))).toEqual({
      edges: [
        { kind: 'subscribes', from: 'order.order.v1', to: 'backoffice-soap' },
        { kind: 'calls', from: 'checkout-api', to: 'backoffice-soap' },
        { kind: 'publishes', from: 'backoffice-soap', to: 'order.order.v1' },
      ],
      problems: [],
    });
  });

  it('draws exactly the edges the code has', () => {
    const topics = new Set(topicDeclarations().map((d) => d.topic));
    const picture = edgesFromPicture(currentPage(), topics);
    expect(picture.problems).toEqual([]);
    const code = edgesFromCode().edges;
    const describe = (e: Edge) => `${e.kind}: ${edgeKey(e)}`;
    const drawn = new Set(picture.edges.map(describe));
    const real = new Set(code.map(describe));
    const missing = [...real].filter((e) => !drawn.has(e)).sort();
    const extra = [...drawn].filter((e) => !real.has(e)).sort();
    if (missing.length || extra.length)
      throw new Error(
        `${PAGE}'s Mermaid picture disagrees with the code:\n` +
          missing.map((e) => `  missing from the picture (the code has it): ${e}\n`).join('') +
          extra.map((e) => `  in the picture but not in the code: ${e}\n`).join('') +
          'A topic is published by the service whose contracts declare it (libs/<lib>/contracts/src/*.events.ts), ' +
          'subscribed where a consumer lists it (`topics: [...]`) or a change-event mapper names it (`topic:`); ' +
          'a call is a `<SERVICE>_URL` in apps/<service>/src/config.ts. Draw one edge a line, `a --> b` or `a -->|label| b`, ' +
          'between nodes declared on lines of their own (`id[service]`, `id{{topic}}`).',
      );
  });
});
