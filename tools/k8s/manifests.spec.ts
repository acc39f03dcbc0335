import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parseStoreConfig } from '@commerce/shared-config';
import { deployedNodeOptions, SERVICE_NODE_OPTIONS } from '../e2e/processes';
import { configVariables } from '../docs/config-reference';

// The Kubernetes manifests are checked as data: no cluster is needed, so a missing Deployment, a wrong
// probe path or a variable a service cannot start without fails `npm test`.

const K8S_DIR = join(__dirname, '..', '..', 'infra', 'k8s');
const DEMO_STORE = join(__dirname, '..', '..', 'infra', 'config', 'demo-store.json');

/** Each Deployment's container port: its service's default `PORT`. */
const APPS: Record<string, { port: number }> = {
  'checkout-api': { port: 8080 },
  cart: { port: 8081 },
  catalog: { port: 8082 },
  account: { port: 8083 },
  payment: { port: 8084 },
  order: { port: 8085 },
  'backoffice-soap': { port: 8086 },
};
/** Beyond what its config schema requires: the account's `SMTP_URL`, whose default `outbox` writes mails into the pod. */
const DEPLOYMENT_REQUIRES: Record<string, string[]> = { account: ['SMTP_URL'] };
/**
 * The variables a service cannot start correctly without in Kubernetes: those its config schema gives no default
 * (`apps/<service>/src/config.ts`, as docs/configuration.md lists them), plus `DEPLOYMENT_REQUIRES`.
 */
const requiredOf = (app: string): string[] => [
  ...configVariables()
    .filter((v) => v.service === app && v.fallback === 'required')
    .map((v) => v.name),
  ...(DEPLOYMENT_REQUIRES[app] ?? []),
];
/** Every variable the service's config schema reads. */
const readBy = (app: string): string[] =>
  configVariables()
    .filter((v) => v.service === app)
    .map((v) => v.name);
const APP_NAMES = Object.keys(APPS);

/**
 * Memory a service takes beside its V8 heap (MiB): code, Node's own, buffers. The idle services' RSS outside the
 * heap was 43–52 MB (`rss - heapTotal`); a SOAP batch's body, its pg buffers, and the account's argon2 hashes
 * (19 MiB each, up to four at once on libuv's pool) come on top. Decision 109.
 */
const OUTSIDE_HEAP_MI = 96;

/** A pinned V8 size option's value (MB), e.g. `--max-semi-space-size=32` → 32. */
const sizeOption = (options: readonly string[], name: string): number | undefined => {
  const found = options.find((o) => o.startsWith(`${name}=`));
  return found === undefined ? undefined : Number(found.slice(name.length + 1));
};

/**
 * The heap V8 may grow to with these options (MB): the old generation and the young one, which is three
 * semi-spaces (the two the scavenger copies between and the new large-object space): what
 * `v8.getHeapStatistics().heap_size_limit` says (checked below).
 */
const heapCeilingMb = (options: readonly string[]): number =>
  sizeOption(options, '--max-old-space-size')! + 3 * sizeOption(options, '--max-semi-space-size')!;

/** A Kubernetes memory quantity in MiB (`384Mi`, `1Gi`). */
const mebibytes = (quantity: string): number => {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!match) throw new Error(`memory quantity ${quantity}: expected <n>Mi or <n>Gi`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
};

type Manifest = { file: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; [key: string]: any };

function loadManifests(): Manifest[] {
  return readdirSync(K8S_DIR)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(K8S_DIR, file), 'utf8')).map((doc) => {
        if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
        return { ...(doc.toJSON() as Manifest), file };
      }),
    );
}

const manifests = loadManifests();
const ofKind = (kind: string) => manifests.filter((m) => m.kind === kind);
const one = (kind: string, name: string): Manifest => {
  const found = ofKind(kind).filter((m) => m.metadata.name === name);
  if (found.length !== 1) throw new Error(`expected one ${kind} ${name}, found ${found.length}`);
  return found[0]!;
};
const containerOf = (app: string) => {
  const containers = one('Deployment', app).spec.template.spec.containers as any[];
  expect(containers).toHaveLength(1);
  return containers[0];
};
/** A probe's or Service's port, named or numbered, as the number it resolves to in the container. */
const resolvePort = (container: any, port: string | number): number | undefined =>
  typeof port === 'number' ? port : container.ports.find((p: any) => p.name === port)?.containerPort;

describe('Kubernetes manifests (infra/k8s)', () => {
  it('kustomization.yaml lists every manifest file in the folder, and only files that exist', () => {
    const kustomization = parseAllDocuments(readFileSync(join(K8S_DIR, 'kustomization.yaml'), 'utf8'))[0]!.toJSON();
    const files = readdirSync(K8S_DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(files.sort());
    expect(kustomization.images).toEqual([expect.objectContaining({ name: 'commerce' })]);
  });

  it('deploys exactly the seven services, and not the all-in-one', () => {
    expect(
      ofKind('Deployment')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual([...APP_NAMES].sort());
    expect(
      ofKind('Service')
        .map((s) => s.metadata.name)
        .sort(),
    ).toEqual([...APP_NAMES].sort());
  });

  describe.each(APP_NAMES)('%s', (app) => {
    const { port } = APPS[app]!;
    const required = requiredOf(app);

    it('has one Deployment and one Service whose selector picks its pods and whose port reaches the container', () => {
      const deployment = one('Deployment', app);
      const service = one('Service', app);
      const podLabels = deployment.spec.template.metadata.labels;
      expect(deployment.spec.selector.matchLabels).toEqual({ 'app.kubernetes.io/name': app });
      expect(podLabels).toMatchObject(deployment.spec.selector.matchLabels);
      expect(podLabels).toMatchObject(service.spec.selector);
      const container = containerOf(app);
      expect(container.ports).toEqual([{ name: 'http', containerPort: port }]);
      expect(service.spec.ports).toHaveLength(1);
      expect(service.spec.ports[0].port).toBe(port);
      expect(resolvePort(container, service.spec.ports[0].targetPort)).toBe(port);
    });

    it('runs its own bundle of the commerce image', () => {
      const container = containerOf(app);
      expect(container.image).toBe('commerce:latest');
      // Node's options first (the image's entrypoint is `node`): the same the e2e suites and benches start it with.
      expect(container.args).toEqual([...(SERVICE_NODE_OPTIONS[app] ?? []), `dist/apps/${app}/main.js`]);
      expect(container.command).toBeUndefined();
    });

    it('pins its heap with its Node options (not sized from the memory it sees), within its memory limit', () => {
      // Node sizes V8's heap from a container's memory limit: under 384 Mi a young generation of a few MB, on the
      // benches' host 64 MB semi-spaces. Pinned, the benches and e2e suites run the heap the deployment runs.
      const options = SERVICE_NODE_OPTIONS[app] ?? [];
      expect(sizeOption(options, '--max-semi-space-size')).toBeGreaterThan(0);
      expect(sizeOption(options, '--max-old-space-size')).toBeGreaterThan(0);
      expect(heapCeilingMb(options) + OUTSIDE_HEAP_MI).toBeLessThanOrEqual(mebibytes(containerOf(app).resources.limits.memory));
    });

    it('probes liveness on /healthz and readiness on /readyz at the container port', () => {
      const container = containerOf(app);
      for (const [probe, path] of [
        ['livenessProbe', '/healthz'],
        ['readinessProbe', '/readyz'],
        ['startupProbe', '/healthz'],
      ] as const) {
        expect(container[probe]?.httpGet?.path).toBe(path);
        expect(resolvePort(container, container[probe].httpGet.port)).toBe(port);
      }
    });

    it("names in its pod's commerce.dev/readiness the checks its /readyz makes, never the bus (decision 133)", () => {
      // What the service's main registers as readiness checks; a service started by startDbService has its database.
      const main = readFileSync(join(__dirname, '..', '..', 'apps', app, 'src', 'main.ts'), 'utf8');
      const registered = main.includes('startDbService(')
        ? ['database']
        : [...(/readiness: \[([\s\S]*?)\]/.exec(main)?.[1] ?? '').matchAll(/name: '([^']+)'/g)].map((m) => m[1]!);
      expect(registered.length).toBeGreaterThan(0);
      const annotated = String(one('Deployment', app).spec.template.metadata.annotations['commerce.dev/readiness']).split(',');
      expect(annotated).toEqual(registered);
      // Liveness asks no engine; readiness never waits on Kafka: the outbox keeps what a service writes while it is away.
      expect(annotated).not.toContain('bus');
      expect(containerOf(app).livenessProbe.httpGet.path).toBe('/healthz');
    });

    it('sets every variable its config requires, each from a value or an existing ConfigMap/Secret key', () => {
      const env = containerOf(app).env as any[];
      const names = env.map((e) => e.name);
      expect(names).toEqual(expect.arrayContaining([...required, 'PORT', 'HOST']));
      // And nothing its config does not read (a misspelt or retired variable would be ignored without a word).
      expect(names.filter((name) => !readBy(app).includes(name))).toEqual([]);
      expect(new Set(names).size).toBe(names.length);
      expect(env.find((e) => e.name === 'PORT').value).toBe(String(port));
      expect(env.find((e) => e.name === 'HOST').value).toBe('0.0.0.0');
      for (const e of env) {
        const ref = e.valueFrom?.configMapKeyRef ?? e.valueFrom?.secretKeyRef;
        if (e.value !== undefined) expect(ref).toBeUndefined();
        else {
          const source = one(e.valueFrom.configMapKeyRef ? 'ConfigMap' : 'Secret', ref.name);
          expect(Object.keys(source.data ?? source.stringData)).toContain(ref.key);
        }
      }
    });

    it('reads the store configuration from the mounted commerce-store ConfigMap, if it uses one', () => {
      const container = containerOf(app);
      const storeConfig = (container.env as any[]).find((e) => e.name === 'STORE_CONFIG');
      if (!required.includes('STORE_CONFIG')) {
        expect(storeConfig).toBeUndefined();
        return;
      }
      expect(storeConfig.value).toBe('/config/store.json');
      const mount = (container.volumeMounts as any[]).find((m) => m.mountPath === '/config');
      const volume = (one('Deployment', app).spec.template.spec.volumes as any[]).find((v) => v.name === mount?.name);
      expect(volume?.configMap?.name).toBe('commerce-store');
      expect(Object.keys(one('ConfigMap', 'commerce-store').data)).toContain('store.json');
    });

    it('drains before it stops: preStop sleep 5 s within a 30 s grace period', () => {
      const pod = one('Deployment', app).spec.template.spec;
      expect(pod.terminationGracePeriodSeconds).toBe(30);
      expect(containerOf(app).lifecycle.preStop.exec.command).toEqual(['sleep', '5']);
    });

    it('runs as non-root on a read-only root filesystem, with resources and Prometheus scraping declared', () => {
      const deployment = one('Deployment', app);
      const container = containerOf(app);
      expect(deployment.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
      expect(container.resources.requests).toEqual({ cpu: expect.anything(), memory: expect.anything() });
      expect(container.resources.limits.memory).toBeDefined();
      expect(deployment.spec.template.metadata.annotations).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(port),
        'prometheus.io/path': '/metrics',
        'commerce.dev/readiness': expect.any(String),
      });
    });
  });

  it("each service's options give the heap ceiling counted above, whatever memory the host has", () => {
    const script = `process.stdout.write(String(require('node:v8').getHeapStatistics().heap_size_limit / 1048576))`;
    for (const app of APP_NAMES) {
      const options = SERVICE_NODE_OPTIONS[app] ?? [];
      const run = spawnSync(process.execPath, [...options, '-e', script], { encoding: 'utf8' });
      expect({ app, ceiling: Number(run.stdout) }).toEqual({ app, ceiling: heapCeilingMb(options) });
    }
  });

  it('each service starts with every deployed option the way the launcher passes them, the V8 flags NODE_OPTIONS refuses included', () => {
    // `--heap-growing-percent` (decision 115) in NODE_OPTIONS stops node at once ("not allowed in NODE_OPTIONS").
    const script = `process.stdout.write(JSON.stringify({ ceiling: require('node:v8').getHeapStatistics().heap_size_limit / 1048576, argv: process.execArgv }))`;
    for (const app of APP_NAMES) {
      const { nodeOptions, commandLine } = deployedNodeOptions(app, '');
      const run = spawnSync(process.execPath, [...commandLine, '-e', script], {
        encoding: 'utf8',
        env: { ...process.env, NODE_OPTIONS: nodeOptions },
      });
      expect({ app, status: run.status, stderr: run.stderr }).toEqual({ app, status: 0, stderr: '' });
      const started = JSON.parse(run.stdout) as { ceiling: number; argv: string[] };
      expect({ app, ceiling: started.ceiling }).toEqual({ app, ceiling: heapCeilingMb(SERVICE_NODE_OPTIONS[app] ?? []) });
      expect([...nodeOptions.split(' ').filter(Boolean), ...started.argv.filter((arg) => arg.startsWith('--'))].sort()).toEqual(
        [...(SERVICE_NODE_OPTIONS[app] ?? [])].sort(),
      );
    }
    expect(deployedNodeOptions('backoffice-soap', '--cpu-prof').commandLine).toEqual(['--heap-growing-percent=300']);
    expect(deployedNodeOptions('backoffice-soap', '--cpu-prof').nodeOptions).toBe(
      '--max-semi-space-size=32 --max-old-space-size=192 --cpu-prof',
    );
  });

  it('the catalog runs one replica (the only safe count with MEILI_URL=embedded)', () => {
    expect(one('Deployment', 'catalog').spec.replicas).toBe(1);
  });

  it('the Ingress routes the checkout API to checkout-api:8080, the SOAP API to backoffice-soap:8086 and the payment pages to payment:8084', () => {
    const paths = ofKind('Ingress').flatMap((i) => (i.spec.rules as any[]).flatMap((r) => r.http.paths as any[]));
    const route = (path: string) => {
      const found = paths.find((p) => p.path === path);
      return found && { pathType: found.pathType, service: found.backend.service.name, port: found.backend.service.port.number };
    };
    expect(route('/api/checkout')).toEqual({ pathType: 'Prefix', service: 'checkout-api', port: 8080 });
    expect(route('/ams/system/service/module/soap/api')).toEqual({ pathType: 'Prefix', service: 'backoffice-soap', port: 8086 });
    expect(route('/payment')).toEqual({ pathType: 'Prefix', service: 'payment', port: 8084 });
  });

  it('the store ConfigMap holds a valid store configuration, identical to the demo store', () => {
    const storeJson = JSON.parse(one('ConfigMap', 'commerce-store').data['store.json']);
    expect(() => parseStoreConfig(storeJson, 'infra/k8s/store-config.yaml')).not.toThrow();
    expect(storeJson).toEqual(JSON.parse(readFileSync(DEMO_STORE, 'utf8')));
  });

  it('the shared env names in-cluster engines and the Secret example holds only placeholders', () => {
    expect(one('ConfigMap', 'commerce-env').data).toMatchObject({
      KAFKA_BROKERS: 'kafka:9092',
      REDIS_URL: 'redis://redis:6379',
      MEILI_URL: 'http://meilisearch:7700',
    });
    const secret = one('Secret', 'commerce-secrets').stringData as Record<string, string>;
    expect(Object.keys(secret).sort()).toEqual(['DATABASE_URL', 'MEILI_API_KEY', 'SMTP_URL']);
    for (const value of Object.values(secret)) expect(value).toContain('CHANGE-ME');
  });

  // kustomize itself catches what parsing alone cannot (a resource it cannot load, a file outside the
  // folder); it ships with kubectl, which not every machine running the unit tests has.
  const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  (kubectl.status === 0 ? it : it.skip)(
    `kustomize renders the folder${kubectl.status === 0 ? '' : ' [skipped: kubectl not found]'}`,
    () => {
      const rendered = spawnSync('kubectl', ['kustomize', K8S_DIR], { encoding: 'utf8', timeout: 60_000 });
      expect(rendered.stderr).toBe('');
      const kinds = parseAllDocuments(rendered.stdout).map((d) => `${d.toJSON().kind}/${d.toJSON().metadata.name}`);
      expect(kinds).toEqual(expect.arrayContaining([...APP_NAMES.map((a) => `Deployment/${a}`), 'Ingress/commerce']));
      expect(kinds).toHaveLength(manifests.length);
    },
    60_000,
  );
});
