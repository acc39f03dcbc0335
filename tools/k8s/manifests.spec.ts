import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parseStoreConfig } from '@commerce/shared-config';
import { deployedNodeOptions, SERVICE_NODE_OPTIONS } from '../e2e/processes';
import { configVariables } from '../docs/config-reference';

// The Kubernetes manifests are checked as data: no cluster is needed, so a missing Deployment, a wrong
// probe path, a variable a service cannot start without or a NetworkPolicy that forgets a caller fails `npm test`.
// infra/k8s/base holds what every deployment has; overlays/local (engines in the cluster) and overlays/production
// (managed engines) add the namespace, the image, the Secret and the engines' addresses.

const K8S_ROOT = join(__dirname, '..', '..', 'infra', 'k8s');
const BASE_DIR = join(K8S_ROOT, 'base');
const OVERLAYS = ['local', 'production'] as const;
const overlayDir = (overlay: string, ...rest: string[]) => join(K8S_ROOT, 'overlays', overlay, ...rest);
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

/** The documents of one YAML file (a parse error fails the test run). */
const loadFile = (dir: string, file: string): Manifest[] =>
  parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return { ...(doc.toJSON() as Manifest), file };
  });
const kustomizationOf = (dir: string): Record<string, any> => loadFile(dir, 'kustomization.yaml')[0]!;

function loadManifests(dir: string): Manifest[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((doc) => {
        if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
        return { ...(doc.toJSON() as Manifest), file };
      }),
    );
}

const manifests = loadManifests(BASE_DIR);
const jobs = loadManifests(join(K8S_ROOT, 'jobs'));
const localEngines = loadFile(overlayDir('local'), 'engines.yaml');
const localEnginePolicies = loadFile(overlayDir('local'), 'engine-network-policies.yaml');

/** The keys of the Secret commerce-secrets in each overlay: generated in `local`, made out of band in `production`. */
const secretKeys: Record<(typeof OVERLAYS)[number], Record<string, string>> = {
  local: Object.fromEntries(
    (kustomizationOf(overlayDir('local')).secretGenerator as any[])
      .find((g) => g.name === 'commerce-secrets')
      .literals.map((l: string) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  ),
  production: loadFile(overlayDir('production'), 'commerce-secrets.example.yaml')[0]!.stringData,
};
/** An overlay's commerce-env: the base's data with the overlay's JSON-patch `replace` operations applied. */
const envOf = (overlay: string): Record<string, string> => {
  const data = { ...one('ConfigMap', 'commerce-env').data } as Record<string, string>;
  for (const patch of (kustomizationOf(overlayDir(overlay)).patches ?? []) as any[]) {
    if (patch.target.kind !== 'ConfigMap' || patch.target.name !== 'commerce-env') continue;
    for (const op of parseAllDocuments(patch.patch)[0]!.toJSON() as any[]) {
      expect(op).toMatchObject({ op: 'replace', path: expect.stringMatching(/^\/data\//) });
      expect(data).toHaveProperty(op.path.slice(6));
      data[op.path.slice(6)] = op.value;
    }
  }
  return data;
};
/** The in-cluster services an app calls: the `http://<service>:<port>` values of its env. */
const calleesOf = (app: string): { name: string; port: number }[] =>
  (one('Deployment', app).spec.template.spec.containers[0].env as any[])
    .map((e) => /^http:\/\/([a-z-]+):(\d+)$/.exec(e.value ?? ''))
    .filter((m): m is RegExpExecArray => m !== null && m[1]! in APPS)
    .map((m) => ({ name: m[1]!, port: Number(m[2]) }));
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
  it("the base's kustomization.yaml lists every manifest file in the folder, and leaves the image to the overlays", () => {
    const kustomization = kustomizationOf(BASE_DIR);
    const files = readdirSync(BASE_DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(files.sort());
    expect(kustomization.images).toBeUndefined();
    expect(kustomization.namespace).toBeUndefined();
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
      expect(container.image).toBe('commerce');
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
      // What the service's process registers as readiness checks: startService checks the database of a config
      // that has one, then those of the module its main starts (libs/<service>/adapters/src/<service>.module.ts).
      const main = readFileSync(join(__dirname, '..', '..', 'apps', app, 'src', 'main.ts'), 'utf8');
      const service = /startService\('[^']+', ConfigSchema, [\s\S]*?(\w+)Module\(/.exec(main)?.[1];
      expect(service).toBeDefined();
      const module = readFileSync(join(__dirname, '..', '..', 'libs', service!, 'adapters', 'src', `${service}.module.ts`), 'utf8');
      const registered = [
        ...(readBy(app).includes('DATABASE_URL') ? ['database'] : []),
        ...[...(/readiness: \[([\s\S]*?)\]/.exec(module)?.[1] ?? '').matchAll(/name: '([^']+)'/g)].map((m) => m[1]!),
      ];
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
        else if (e.valueFrom.configMapKeyRef) expect(Object.keys(one('ConfigMap', ref.name).data)).toContain(ref.key);
        else {
          expect(ref.name).toBe('commerce-secrets');
          for (const overlay of OVERLAYS)
            expect({ overlay, keys: Object.keys(secretKeys[overlay]) }).toEqual({ overlay, keys: expect.arrayContaining([ref.key]) });
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

    it('is scaled by its HorizontalPodAutoscaler on CPU (no replica count of its own) and guarded by a PodDisruptionBudget', () => {
      expect(one('Deployment', app).spec.replicas).toBeUndefined();
      const hpa = one('HorizontalPodAutoscaler', app);
      expect(hpa.apiVersion).toBe('autoscaling/v2');
      expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: app });
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(1);
      expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
      expect(hpa.spec.metrics).toEqual([
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } } },
      ]);
      const pdb = one('PodDisruptionBudget', app);
      // maxUnavailable, not minAvailable: a single replica can still be drained.
      expect(pdb.spec).toEqual({ maxUnavailable: 1, selector: { matchLabels: { 'app.kubernetes.io/name': app } } });
    });

    it('spreads its replicas over nodes and zones, without refusing to schedule on one node', () => {
      const constraints = one('Deployment', app).spec.template.spec.topologySpreadConstraints as any[];
      expect(constraints.map((c) => c.topologyKey).sort()).toEqual(['kubernetes.io/hostname', 'topology.kubernetes.io/zone']);
      for (const c of constraints) {
        expect(c).toMatchObject({
          maxSkew: 1,
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: { matchLabels: { 'app.kubernetes.io/name': app } },
        });
      }
    });

    it('its NetworkPolicy lets in only the services that call it (and the Ingress where it routes here), and out only to what it calls', () => {
      const policy = one('NetworkPolicy', app);
      expect(policy.spec.podSelector).toEqual({ matchLabels: { 'app.kubernetes.io/name': app } });
      expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
      const callers = APP_NAMES.filter((other) => calleesOf(other).some((c) => c.name === app));
      const podsIn = (policy.spec.ingress as any[]).flatMap((r) =>
        (r.from as any[]).filter((f) => f.podSelector).map((f) => f.podSelector.matchLabels['app.kubernetes.io/name']),
      );
      expect(podsIn.sort()).toEqual(callers.sort());
      const namespacesIn = (policy.spec.ingress as any[]).flatMap((r) =>
        (r.from as any[]).filter((f) => f.namespaceSelector).map((f) => f.namespaceSelector.matchLabels['kubernetes.io/metadata.name']),
      );
      const routed = ofKind('Ingress').some((i) =>
        (i.spec.rules as any[]).some((r) => (r.http.paths as any[]).some((p) => p.backend.service.name === app)),
      );
      expect(namespacesIn.sort()).toEqual(routed ? ['ingress-nginx', 'monitoring'] : ['monitoring']);
      for (const rule of policy.spec.ingress as any[]) expect(rule.ports).toEqual([{ protocol: 'TCP', port }]);
      const podsOut = (policy.spec.egress as any[])
        .filter((r) => r.to)
        .map((r) => ({ name: r.to[0].podSelector.matchLabels['app.kubernetes.io/name'], port: r.ports[0].port }));
      expect(podsOut.sort((a, b) => a.name.localeCompare(b.name))).toEqual(calleesOf(app).sort((a, b) => a.name.localeCompare(b.name)));
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

  it('only checkout-api, backoffice-soap and payment (the pages) are let in from the Ingress; everything else is denied both ways', () => {
    const denyAll = one('NetworkPolicy', 'default-deny');
    expect(denyAll.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    expect(one('NetworkPolicy', 'allow-dns').spec.egress[0].ports).toEqual([
      { protocol: 'UDP', port: 53 },
      { protocol: 'TCP', port: 53 },
    ]);
    const fromIngress = ofKind('NetworkPolicy')
      .filter((p) =>
        ((p.spec.ingress ?? []) as any[]).some((r) =>
          (r.from as any[]).some((f) => f.namespaceSelector?.matchLabels['kubernetes.io/metadata.name'] === 'ingress-nginx'),
        ),
      )
      .map((p) => p.metadata.name);
    expect(fromIngress.sort()).toEqual(['backoffice-soap', 'checkout-api', 'payment']);
  });

  it("the pods run as the image's own user, and the Dockerfile's default base is the Node major the project pins", () => {
    const dockerfile = readFileSync(join(__dirname, '..', '..', 'Dockerfile'), 'utf8');
    const [, uid, gid] = /^USER (\d+):(\d+)$/m.exec(dockerfile) ?? [];
    for (const app of APP_NAMES) {
      expect(one('Deployment', app).spec.template.spec.securityContext).toMatchObject({ runAsUser: Number(uid), runAsGroup: Number(gid) });
    }
    const pinned = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')).devDependencies.node as string;
    expect(/^ARG BASE=node:(\d+)-/m.exec(dockerfile)?.[1]).toBe(/(\d+)/.exec(pinned)?.[1]);
  });

  it('the search-apply Job reaches Postgres and Meilisearch only and reads the same Secret and settings', () => {
    const job = jobs.find((j) => j.kind === 'Job' && j.metadata.name === 'search-apply')!;
    const container = job.spec.template.spec.containers[0];
    expect(container.image).toBe('commerce');
    expect(container.args).toEqual(['dist/apps/search-apply/main.js', '--swap-if-better']);
    expect(job.spec.template.metadata.labels['app.kubernetes.io/name']).toBe('search-apply');
    expect(one('NetworkPolicy', 'search-apply').spec.egress).toEqual([
      {
        ports: [
          { protocol: 'TCP', port: 5432 },
          { protocol: 'TCP', port: 7700 },
        ],
      },
    ]);
    expect(kustomizationOf(join(K8S_ROOT, 'jobs')).resources).toEqual(['search-apply.yaml']);
  });

  describe.each(OVERLAYS)('overlay %s', (overlay) => {
    it('puts everything in the namespace commerce, under Pod Security `restricted`', () => {
      const kustomization = kustomizationOf(overlayDir(overlay));
      expect(kustomization.namespace).toBe('commerce');
      expect(kustomization.resources).toEqual(expect.arrayContaining(['namespace.yaml', '../../base']));
      const namespace = loadFile(overlayDir(overlay), 'namespace.yaml')[0]!;
      expect(namespace.metadata.name).toBe('commerce');
      expect(namespace.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
    });

    it('names the image by tag and digest, the same for its Jobs', () => {
      const image = loadFile(overlayDir(overlay, 'image'), 'kustomization.yaml')[0]!;
      expect(image.kind).toBe('Component');
      expect(image.images).toEqual([
        {
          name: 'commerce',
          newName: expect.stringMatching(/\/commerce$/),
          newTag: expect.any(String),
          digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        },
      ]);
      expect(kustomizationOf(overlayDir(overlay)).components).toEqual(['image']);
      expect(kustomizationOf(overlayDir(overlay, 'jobs'))).toMatchObject({
        namespace: 'commerce',
        resources: ['../../../jobs'],
        components: ['../image'],
      });
    });

    it('gives the Secret every key the services read (DATABASE_URL, MEILI_API_KEY, SMTP_URL, PAYMENT_TEST_HMAC_KEY)', () => {
      expect(Object.keys(secretKeys[overlay]).sort()).toEqual(['DATABASE_URL', 'MEILI_API_KEY', 'PAYMENT_TEST_HMAC_KEY', 'SMTP_URL']);
    });
  });

  it('local: the engines run in the namespace, and the settings and the Secret name their Services', () => {
    const services = Object.fromEntries(
      localEngines.filter((m) => m.kind === 'Service').map((m) => [m.metadata.name, (m.spec.ports as any[]).map((p) => p.port)]),
    );
    expect(Object.keys(services).sort()).toEqual(['kafka', 'meilisearch', 'postgres', 'redis', 'smtp-sink']);
    const reaches = (url: string | undefined) => {
      const { hostname, port } = new URL(url?.includes('://') ? url : `tcp://${url}`);
      return services[hostname]?.includes(Number(port));
    };
    const env = envOf('local');
    expect([env.KAFKA_BROKERS, env.REDIS_URL, env.MEILI_URL].map(reaches)).toEqual([true, true, true]);
    expect([secretKeys.local.DATABASE_URL, secretKeys.local.SMTP_URL].map(reaches)).toEqual([true, true]);
    const kafka = localEngines.find((m) => m.kind === 'StatefulSet' && m.metadata.name === 'kafka')!;
    expect((kafka.spec.template.spec.containers[0].env as any[]).find((e) => e.name === 'KAFKA_ADVERTISED_LISTENERS').value).toBe(
      `PLAINTEXT://${env.KAFKA_BROKERS}`,
    );
    for (const engine of localEngines.filter((m) => m.kind === 'StatefulSet')) {
      // Kubernetes' service links would hand Kafka KAFKA_PORT=tcp://…, which its image reads as a broker property.
      expect(engine.spec.template.spec).toMatchObject({ enableServiceLinks: false, securityContext: { runAsNonRoot: true } });
      expect(engine.spec.template.spec.containers[0].imagePullPolicy).toBe('IfNotPresent');
      // Only the services that use an engine reach it.
      const policy = localEnginePolicies.find((p) => p.metadata.name === engine.metadata.name)!;
      expect(policy.spec.podSelector).toEqual(engine.spec.selector);
    }
  });

  it('production: no engine in the cluster, managed engines by URL, no Secret with a value in the repository', () => {
    expect(kustomizationOf(overlayDir('production')).resources).toEqual(['namespace.yaml', '../../base']);
    expect(kustomizationOf(overlayDir('production')).secretGenerator).toBeUndefined();
    const env = envOf('production');
    for (const key of ['KAFKA_BROKERS', 'REDIS_URL', 'MEILI_URL', 'PAYMENT_PUBLIC_URL']) {
      expect({ key, value: env[key] }).not.toEqual({ key, value: one('ConfigMap', 'commerce-env').data[key] });
    }
    for (const value of Object.values(secretKeys.production)) expect(value).toContain('CHANGE-ME');
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
    expect(() => parseStoreConfig(storeJson, 'infra/k8s/base/store-config.yaml')).not.toThrow();
    expect(storeJson).toEqual(JSON.parse(readFileSync(DEMO_STORE, 'utf8')));
  });

  // kustomize itself catches what parsing alone cannot (a resource it cannot load, a file outside the
  // folder); it ships with kubectl, which not every machine running the unit tests has.
  const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  // (.ci/run's manifest step renders both overlays and validates them whatever the unit run skipped.)
  (kubectl.status === 0 ? it.each(OVERLAYS) : it.skip.each(OVERLAYS))(
    `kustomize renders the overlay %s: the base, its namespace and the image by tag and digest${kubectl.status === 0 ? '' : ' [skipped: kubectl not found]'}`,
    (overlay) => {
      const rendered = spawnSync('kubectl', ['kustomize', overlayDir(overlay)], { encoding: 'utf8', timeout: 60_000 });
      expect(rendered.stderr).toBe('');
      const docs = parseAllDocuments(rendered.stdout).map((d) => d.toJSON() as Manifest);
      const kinds = docs.map((d) => `${d.kind}/${d.metadata.name}`);
      expect(kinds).toEqual(expect.arrayContaining([...APP_NAMES.map((a) => `Deployment/${a}`), 'Ingress/commerce', 'Namespace/commerce']));
      for (const doc of docs.filter((d) => d.kind !== 'Namespace'))
        expect(`${doc.kind}/${doc.metadata.name}: ${(doc.metadata as any).namespace}`).toBe(`${doc.kind}/${doc.metadata.name}: commerce`);
      const [image] = loadFile(overlayDir(overlay, 'image'), 'kustomization.yaml')[0]!.images;
      for (const app of APP_NAMES) {
        const deployment = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === app)!;
        expect(deployment.spec.template.spec.containers[0].image).toBe(`${image.newName}:${image.newTag}@${image.digest}`);
      }
      const job = spawnSync('kubectl', ['kustomize', overlayDir(overlay, 'jobs')], { encoding: 'utf8', timeout: 60_000 });
      expect(job.stderr).toBe('');
      expect(parseAllDocuments(job.stdout)[0]!.toJSON().spec.template.spec.containers[0].image).toBe(
        `${image.newName}:${image.newTag}@${image.digest}`,
      );
    },
    60_000,
  );
});
