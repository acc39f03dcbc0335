import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { configVariables } from '../docs/config-reference';

// docs/deploy.md's "What each service gets" against what is deployed and what is read: every variable a Deployment
// of infra/k8s/base sets is in its service's row, and every variable a row names is one its config schema reads
// (apps/<service>/src/config.ts, as docs/configuration.md lists them). A table that lacked PAYMENT_URL, CATALOG_URL,
// CART_URL, SMTP_URL, STORE_CONFIG or KAFKA_BROKERS for a service given them fails here.

const ROOT = join(__dirname, '..', '..');
const BASE = join(ROOT, 'infra', 'k8s', 'base');
/** Given to every service and named in the table's header, not in each row. */
const EVERY_SERVICE = ['PORT', 'HOST', 'LOG_LEVEL'];

const deployments = readdirSync(BASE)
  .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
  .flatMap((f) => parseAllDocuments(readFileSync(join(BASE, f), 'utf8')).map((d) => d.toJSON() as Record<string, any>))
  .filter((m) => m?.['kind'] === 'Deployment');
const envOf = (app: string): string[] => {
  const deployment = deployments.find((d) => d['metadata'].name === app);
  if (!deployment) throw new Error(`no Deployment ${app} in infra/k8s/base`);
  return (deployment['spec'].template.spec.containers[0].env as Array<{ name: string }>).map((e) => e.name);
};

/** The table's rows: the Deployment's name, its port, the variables the row names (backticked, upper case). */
function tableRows(): Array<{ app: string; port: number; names: string[] }> {
  const page = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8');
  const section = page.split('### What each service gets')[1]?.split('\n\n')[1];
  if (!section) throw new Error('docs/deploy.md: no table under "### What each service gets"');
  return section
    .split('\n')
    .slice(2)
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .map(([, app, port, variables]) => ({
      app: app!,
      port: Number(port),
      names: [...new Set([...variables!.matchAll(/`([A-Z][A-Z0-9_]+)(?:=[^`]*)?`/g)].map((m) => m[1]!))],
    }));
}

describe("docs/deploy.md's table of each service's variables", () => {
  const rows = tableRows();

  it('has one row per Deployment of the base', () => {
    expect(rows.map((r) => r.app).sort()).toEqual(deployments.map((d) => d['metadata'].name).sort());
  });

  it.each(deployments.map((d) => d['metadata'].name as string))('names every variable the %s Deployment sets', (app) => {
    const row = rows.find((r) => r.app === app)!;
    expect(envOf(app).filter((name) => !EVERY_SERVICE.includes(name) && !row.names.includes(name))).toEqual([]);
  });

  it.each(deployments.map((d) => d['metadata'].name as string))('names only variables the %s config schema reads', (app) => {
    const read = configVariables()
      .filter((v) => v.service === app)
      .map((v) => v.name);
    expect(read.length).toBeGreaterThan(0);
    expect(rows.find((r) => r.app === app)!.names.filter((name) => !read.includes(name))).toEqual([]);
  });

  it("gives each row the port its Deployment's PORT says", () => {
    for (const row of rows) {
      const deployment = deployments.find((d) => d['metadata'].name === row.app)!;
      const port = (deployment['spec'].template.spec.containers[0].env as Array<{ name: string; value?: string }>).find(
        (e) => e.name === 'PORT',
      );
      expect([row.app, row.port]).toEqual([row.app, Number(port?.value)]);
    }
  });
});
