// The services, Kafka topics and internal calls as the code has them, and as docs/architecture.md draws them
// (issue 24). tools/docs/architecture.spec.ts compares the two, so the picture cannot drift from the code.
//
// From the code:
// - topics: the `<Name>Topics = { KEY: 'topic' }` constants of `libs/<lib>/contracts/src/*.events.ts`; a topic
//   is published by the service whose contracts declare it (its outbox relay), or, for the ground floor's
//   contracts (`GROUND_CONTRACTS`), by the service named there, and by no other;
// - subscriptions: `topics: [XTopics.KEY, …]` (a consumer) and `topic: XTopics.KEY` (the back office's change-event
//   mappers) in the non-test sources of `libs/<lib>/{core,adapters}/src`;
// - calls: the `<SERVICE>_URL` variables of each service's config schema (`apps/<app>/src/config.ts`): the internal
//   HTTP clients its main builds.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { configVariables } from './config-reference';

const root = join(__dirname, '..', '..');
export const PAGE = 'docs/architecture.md';

/** Each deployable service and the library folder (`libs/<lib>`) that holds its core, adapters and contracts. */
export const SERVICE_LIBS: Readonly<Record<string, string>> = {
  'checkout-api': 'checkout',
  cart: 'cart',
  catalog: 'catalog',
  account: 'account',
  payment: 'payment',
  order: 'order',
  'backoffice-soap': 'backoffice',
};
/**
 * Ground-floor contracts (`libs/<lib>/contracts`, read by every service, importing none of them) and the service
 * that publishes the topics they declare: the ERP's upserts reach the services through backoffice-soap.
 */
export const GROUND_CONTRACTS: Readonly<Record<string, string>> = { erp: 'backoffice-soap' };
/** Apps that are not a service of the picture: the all-in-one runs all of them; the storefront is a static client. */
export const NOT_SERVICES = ['all-in-one', 'storefront', 'search-apply'];

export type EdgeKind = 'publishes' | 'subscribes' | 'calls';
export interface Edge {
  kind: EdgeKind;
  from: string;
  to: string;
}
export const edgeKey = (e: Edge): string => `${e.from} ${e.kind === 'calls' ? '→ (HTTP)' : '→'} ${e.to}`;

const isTestFile = (path: string) => /\.(spec|int-spec|contract)\.ts$/.test(path) || /[/\\]testing[/\\]/.test(path);

function sourcesUnder(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return name.endsWith('.ts') && !isTestFile(path) ? [path] : [];
  });
}

const libSources = (lib: string, layer: string) => sourcesUnder(join(root, 'libs', lib, layer, 'src'));

export interface TopicDeclaration {
  /** `CatalogTopics.PRODUCT` */
  constant: string;
  topic: string;
  /** The service whose contracts declare it (or that publishes a ground-floor contract's topic). */
  owner: string;
  /** The events the contracts define on it (`export const X = defineEvent({ topic: … })` or a helper that does). */
  events: string[];
}

/** Every topic constant of every service's contracts. */
export function topicDeclarations(): TopicDeclaration[] {
  const declarations: TopicDeclaration[] = [];
  const contractLibs = [
    ...Object.entries(SERVICE_LIBS),
    ...Object.entries(GROUND_CONTRACTS).map(([lib, service]): [string, string] => [service, lib]),
  ];
  for (const [service, lib] of contractLibs) {
    for (const file of libSources(lib, 'contracts').filter((f) => f.endsWith('.events.ts'))) {
      const text = readFileSync(file, 'utf8');
      for (const [, group, body] of text.matchAll(/export const (\w+Topics) = \{([^}]*)\}/g)) {
        for (const [, key, topic] of body!.matchAll(/(\w+):\s*'([^']+)'/g)) {
          const constant = `${group}.${key}`;
          declarations.push({ constant, topic: topic!, owner: service, events: eventsOn(text, constant) });
        }
      }
    }
  }
  return declarations;
}

/** The exported events of a contracts file that are defined on `constant`, directly or through a local helper. */
function eventsOn(text: string, constant: string): string[] {
  const onTopic = new RegExp(`defineEvent\\(\\{\\s*topic:\\s*${constant.replace('.', '\\.')}\\b`);
  const helpers = [...text.matchAll(/\nfunction (\w+)[\s\S]*?\n\}/g)].filter(([body]) => onTopic.test(body)).map(([, name]) => name!);
  // Each exported statement, from its `export const` to the next top-level `export`.
  const statements = text
    .split(/\n(?=export )/)
    .map((s) => /^export const (\w+) = ([\s\S]*)$/.exec(s))
    .filter((m) => m !== null);
  const defined = statements
    .filter(([, , init]) => onTopic.test(init!) || helpers.some((h) => init!.startsWith(`${h}(`)))
    .map(([, name]) => name!);
  // …and the collections of them (`UpsertReceivedEvents`, `ORDER_EVENTS`).
  const collections = statements
    .filter(([, name, init]) => !defined.includes(name!) && defined.some((e) => new RegExp(`\\b${e}\\b`).test(init!)))
    .map(([, name]) => name!);
  return [...defined, ...collections];
}

/** The topic constants (`XTopics.KEY`) a source text subscribes to: consumers' `topics: […]`, mappers' `topic:`. */
function subscribedConstants(text: string): string[] {
  const lists = [...text.matchAll(/\btopics:\s*\[([^\]]*)\]/g)].flatMap(([, list]) =>
    [...list!.matchAll(/\w+Topics\.\w+/g)].map(([c]) => c),
  );
  const single = [...text.matchAll(/\btopic:\s*(\w+Topics\.\w+)/g)].map(([, c]) => c!);
  return [...lists, ...single];
}

/** The edges the code has, and the problems found while reading it (an unknown constant, a foreign publisher). */
export function edgesFromCode(): { edges: Edge[]; problems: string[] } {
  const declarations = topicDeclarations();
  const byConstant = new Map(declarations.map((d) => [d.constant, d]));
  const edges: Edge[] = [];
  const problems: string[] = [];

  for (const d of declarations) {
    const ownSources = [...libSources(SERVICE_LIBS[d.owner]!, 'core'), ...libSources(SERVICE_LIBS[d.owner]!, 'adapters')];
    const writes = ownSources.some((f) => d.events.some((e) => new RegExp(`\\b${e}\\b`).test(readFileSync(f, 'utf8'))));
    if (!writes)
      problems.push(
        `${d.topic} (${d.constant}) is declared by ${d.owner}'s contracts, but ${d.owner} creates none of its events (${d.events.join(', ') || 'none found'})`,
      );
    edges.push({ kind: 'publishes', from: d.owner, to: d.topic });
  }

  for (const [service, lib] of Object.entries(SERVICE_LIBS)) {
    for (const file of [...libSources(lib, 'core'), ...libSources(lib, 'adapters')]) {
      const text = readFileSync(file, 'utf8');
      for (const constant of subscribedConstants(text)) {
        const d = byConstant.get(constant);
        if (!d) problems.push(`${relative(root, file)} subscribes to ${constant}, which no contracts' *.events.ts declares`);
        else edges.push({ kind: 'subscribes', from: d.topic, to: service });
      }
      // Only a topic's owner writes its events (through its outbox): another service creating one is a second writer.
      for (const d of declarations) {
        if (d.owner === service) continue;
        for (const e of d.events)
          if (new RegExp(`\\b${e}\\.(create|createParsed|envelopeOf|envelopeOfParsed)\\(`).test(text))
            problems.push(`${relative(root, file)} creates ${e} on ${d.topic}, which ${d.owner} owns`);
      }
    }
  }

  const services = new Set(Object.keys(SERVICE_LIBS));
  for (const v of configVariables()) {
    const callee = /^([A-Z_]+)_URL$/.exec(v.name)?.[1]?.toLowerCase().replace(/_/g, '-');
    if (!callee || !services.has(callee) || !services.has(v.service)) continue;
    edges.push({ kind: 'calls', from: v.service, to: callee });
  }

  const unique = new Map(edges.map((e) => [`${e.kind} ${edgeKey(e)}`, e]));
  return { edges: [...unique.values()], problems };
}

/**
 * The edges of the page's first Mermaid flowchart. Nodes are declared on their own line (`id[label]`, `id{{label}}`,
 * `id([label])`, quotes optional); an edge is `a --> b` or `a -->|label| b`, one a line. A node whose label is a
 * service's name is that service, one whose label is a declared topic is that topic; edges between two of them count
 * (service → topic publishes, topic → service subscribes, service → service calls); edges to anything else
 * (the storefront, the ERP, the engines) are drawn for the reader and not checked.
 */
export function edgesFromPicture(page: string, topics: ReadonlySet<string>): { edges: Edge[]; problems: string[] } {
  // The first Mermaid flowchart: the page's other diagrams (the checkout's state machines) are not this picture.
  const block = /```mermaid\n(flowchart[\s\S]*?)```/.exec(page)?.[1];
  if (!block) return { edges: [], problems: [`${PAGE} has no \`\`\`mermaid flowchart`] };
  const labels = new Map<string, string>();
  const lines = block.split('\n').map((l) => l.trim());
  for (const line of lines) {
    const node = /^(\w+)\s*(?:\(\[|\[\[|\{\{|\[\(|\[|\(|\{)"?([^"\]})]+?)"?(?:\]\)|\]\]|\}\}|\)\]|\]|\)|\})$/.exec(line);
    if (node) labels.set(node[1]!, node[2]!.replace(/<br\/?>.*$/, '').trim());
  }
  const services = new Set(Object.keys(SERVICE_LIBS));
  const kindOf = (id: string) => {
    const label = labels.get(id) ?? id;
    return services.has(label) ? { type: 'service', name: label } : topics.has(label) ? { type: 'topic', name: label } : undefined;
  };
  const edges: Edge[] = [];
  const problems: string[] = [];
  for (const line of lines) {
    const edge = /^(\w+)\s*(?:-->|-\.->|==>)\s*(?:\|[^|]*\|\s*)?(\w+)$/.exec(line);
    if (!edge) continue;
    const [from, to] = [kindOf(edge[1]!), kindOf(edge[2]!)];
    if (!from || !to) continue;
    if (from.type === 'service' && to.type === 'topic') edges.push({ kind: 'publishes', from: from.name, to: to.name });
    else if (from.type === 'topic' && to.type === 'service') edges.push({ kind: 'subscribes', from: from.name, to: to.name });
    else if (from.type === 'service' && to.type === 'service') edges.push({ kind: 'calls', from: from.name, to: to.name });
    else problems.push(`"${line}" links two topics`);
  }
  return { edges, problems };
}

export const currentPage = (): string => readFileSync(join(root, PAGE), 'utf8');

/** Every app under apps/ that is neither a service of the picture nor listed as not one. */
export const unmappedApps = (): string[] =>
  readdirSync(join(root, 'apps')).filter((app) => !(app in SERVICE_LIBS) && !NOT_SERVICES.includes(app));
