/**
 * What deploy/ ships, checked offline (no cluster, no registry):
 *
 * - every Kubernetes manifest in deploy/kubernetes against the Kubernetes API's schemas, twice:
 *   the schema validators of `kubernetes-models` (types, required fields, enums, formats), and the
 *   same package's TypeScript types with `satisfies` (an unknown field — a misspelt
 *   `readinesProbe` — is an excess property there, which the schema validators let through);
 * - the manifests against each other and against the Dockerfile: the image the Dockerfile's docs
 *   build, its commands (dist/main.js, dist/worker.js), its user, its port, probes on the health
 *   endpoints, the Service and disruption budgets selecting the Deployments' pods, the
 *   kustomization listing every manifest;
 * - deploy/compose.yaml (alone, and with the Docker-sandboxes overlay) with Docker Compose's own
 *   validation (`docker-compose config`, which CI installs) and the same cross-checks.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { root } from './workspace-build.js';

const run = promisify(execFile);
const kubernetesDir = path.join(root, 'deploy/kubernetes');
const IMAGE = 'agent-platform/server';
const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');

interface Manifest {
  file: string;
  doc: any;
}

function readYaml(file: string): any[] {
  // merge: Compose's `<<: *anchor` keys, as Compose reads them.
  const docs = parseAllDocuments(readFileSync(file, 'utf8'), { merge: true });
  for (const doc of docs) expect(doc.errors, `${path.relative(root, file)} parses`).toEqual([]);
  return docs.map((doc) => doc.toJS({ maxAliasCount: 100 }));
}

const manifestFiles = readdirSync(kubernetesDir).filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml');
const manifests: Manifest[] = manifestFiles.flatMap((file) => readYaml(path.join(kubernetesDir, file)).map((doc) => ({ file, doc })));
const ofKind = (kind: string) => manifests.filter((m) => m.doc.kind === kind).map((m) => m.doc);
const deployment = (component: string) => ofKind('Deployment').find((d) => d.spec.template.metadata.labels['app.kubernetes.io/component'] === component);

/** `apps/v1` + `Deployment` → `kubernetes-models/apps/v1/Deployment` (the core group is `v1`). */
const modelModule = (apiVersion: string, kind: string) => `kubernetes-models/${apiVersion}/${kind}`;

/** The Dockerfile's value for an instruction's last occurrence (`CMD`, `USER`, `EXPOSE`). */
function instruction(name: string): string {
  const lines = dockerfile.split('\n').filter((line) => line.startsWith(`${name} `));
  expect(lines.length, `the Dockerfile has ${name}`).toBeGreaterThan(0);
  return (lines.at(-1) as string).slice(name.length + 1).trim();
}

let previousProgram: ts.Program | undefined;

/** Diagnostics of the manifests as TypeScript object literals, each `satisfies` its kind's interface. */
function typeErrors(objects: Manifest[] = manifests): string[] {
  const file = path.join(kubernetesDir, '__manifests__.ts');
  const imports: string[] = [];
  const checks: string[] = [];
  objects.forEach(({ file: from, doc }, index) => {
    imports.push(`import type { I${doc.kind} as T${index} } from '${modelModule(doc.apiVersion, doc.kind)}';`);
    checks.push(`// ${from}\nexport const m${index} = ${JSON.stringify(doc, null, 2)} satisfies T${index};`);
  });
  const source = `${imports.join('\n')}\n${checks.join('\n')}\n`;
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (
    (exists) => (name: string) =>
      name === file || exists(name)
  )(host.fileExists.bind(host));
  host.readFile = (name) => (name === file ? source : readFile(name));
  host.getSourceFile = (name, version, onError, create) =>
    name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, onError, create);
  // The second check (the misspelt field) reuses the first's program: only the one file changed.
  const program = ts.createProgram([file], options, host, previousProgram);
  previousProgram = program;
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : null;
    const line = where ? source.split('\n')[where.line] : '';
    return `${ts.flattenDiagnosticMessageText(d.messageText, '\n')}${line ? ` (at: ${line.trim()})` : ''}`;
  });
}

describe('the Kubernetes manifests', () => {
  it('are there: Namespace, ConfigMap, two Deployments, a Service, disruption budgets', () => {
    expect(
      ofKind('Deployment')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual(['agent-platform-api', 'agent-platform-worker']);
    for (const kind of ['Namespace', 'ConfigMap', 'Service', 'PodDisruptionBudget']) expect(ofKind(kind).length, kind).toBeGreaterThan(0);
  });

  it("pass the Kubernetes API's schema validation", async () => {
    for (const { file, doc } of manifests) {
      const module = (await import(modelModule(doc.apiVersion, doc.kind))) as Record<string, new (data: unknown) => { validate(): void }>;
      const Model = module[doc.kind];
      expect(Model, `${file}: a known kind, ${doc.apiVersion} ${doc.kind}`).toBeTypeOf('function');
      expect(() => new (Model as new (data: unknown) => { validate(): void })(doc).validate(), `${file}: ${doc.kind} ${doc.metadata?.name}`).not.toThrow();
    }
  });

  it("name no field the Kubernetes API's types do not have", () => {
    expect(typeErrors()).toEqual([]);
  });

  it('the checks can fail: a wrong type and a misspelt field are caught', async () => {
    const api = structuredClone(deployment('api'));
    api.spec.replicas = 'two';
    const { Deployment } = await import('kubernetes-models/apps/v1/Deployment');
    expect(() => new Deployment(api).validate()).toThrow(/replicas/);
    const typo = manifests.map((manifest) => (manifest.doc.kind === 'Deployment' ? { ...manifest, doc: structuredClone(manifest.doc) } : manifest));
    const container = typo.find((manifest) => manifest.doc.kind === 'Deployment')?.doc.spec.template.spec.containers[0];
    container.readinesProbe = container.readinessProbe;
    expect(typeErrors(typo).join('\n')).toMatch(/readinesProbe/);
  });

  it("the docs' Kubernetes examples (docs/kubernetes.md, docs/operations.md) are valid objects too", async () => {
    const examples = ['docs/kubernetes.md', 'docs/operations.md'].flatMap((file) =>
      [...readFileSync(path.join(root, file), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)]
        .map((match) => parse(match[1] as string))
        .filter((doc) => doc?.apiVersion && doc?.kind && !String(doc.apiVersion).includes('x-k8s.io'))
        .map((doc) => ({ file, doc })),
    );
    expect(examples.map((e) => e.doc.kind)).toEqual(expect.arrayContaining(['NetworkPolicy', 'RuntimeClass', 'Pod', 'Role', 'Deployment']));
    for (const { file, doc } of examples) {
      const module = (await import(modelModule(doc.apiVersion, doc.kind))) as Record<string, new (data: unknown) => { validate(): void }>;
      expect(() => new (module[doc.kind] as new (data: unknown) => { validate(): void })(doc).validate(), `${file}: ${doc.kind}`).not.toThrow();
    }
    expect(typeErrors(examples)).toEqual([]);
  });

  it('run the image the Dockerfile builds, with its commands, user and port', () => {
    const [cmd, user, port] = [JSON.parse(instruction('CMD')), instruction('USER'), Number(instruction('EXPOSE'))];
    expect(cmd).toEqual(['node', 'dist/main.js']);
    // The build bundles both entry points into dist/.
    expect(dockerfile).toMatch(/esbuild examples\/server\/src\/main\.ts examples\/server\/src\/worker\.ts [^\n]*\n[^\n]*--outdir=examples\/server\/dist/);
    const [uid, gid] = user.split(':').map(Number);
    const commands = { api: cmd, worker: ['node', 'dist/worker.js'] };
    for (const component of ['api', 'worker'] as const) {
      const spec = deployment(component).spec.template.spec;
      const container = spec.containers[0];
      expect(container.image).toBe(IMAGE);
      expect(container.command).toEqual(commands[component]);
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: uid, runAsGroup: gid });
      expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
      // A read-only root: the process runtime's sandboxes and Node's temporary files go to /tmp.
      expect(container.volumeMounts).toContainEqual(expect.objectContaining({ mountPath: '/tmp' }));
      expect(container.envFrom).toEqual(expect.arrayContaining([{ configMapRef: { name: 'agent-platform' } }, { secretRef: { name: 'agent-platform' } }]));
      const grace = Number(ofKind('ConfigMap')[0].data.AGENT_PLATFORM_SHUTDOWN_GRACE_MS) / 1000;
      const preStop = Number(container.lifecycle?.preStop?.exec?.command?.[1] ?? 0);
      expect(spec.terminationGracePeriodSeconds, `${component}: above the grace and the preStop pause`).toBeGreaterThan(grace + preStop);
    }
    const api = deployment('api').spec.template.spec.containers[0];
    expect(api.env).toContainEqual({ name: 'AGENT_PLATFORM_EXECUTOR', value: 'off' });
    const httpPort = api.ports.find((p: { name: string }) => p.name === 'http');
    expect(httpPort.containerPort).toBe(port);
    expect(api.env).toContainEqual({ name: 'PORT', value: String(port) });
    expect(api.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
    expect(api.readinessProbe.httpGet).toEqual({ path: '/health/ready', port: 'http' });
    expect(api.startupProbe.httpGet.path).toBe('/health/live');
  });

  it('select their own pods: the Service the API, each disruption budget its Deployment', () => {
    const [service] = ofKind('Service');
    const apiLabels = deployment('api').spec.template.metadata.labels;
    expect(apiLabels).toMatchObject(service.spec.selector);
    expect(deployment('worker').spec.template.metadata.labels).not.toMatchObject(service.spec.selector);
    expect(service.spec.ports[0].targetPort).toBe('http');
    const budgets = ofKind('PodDisruptionBudget');
    for (const component of ['api', 'worker']) {
      const pods = deployment(component);
      expect(pods.spec.template.metadata.labels).toMatchObject(pods.spec.selector.matchLabels);
      expect(budgets.filter((b) => matches(pods.spec.template.metadata.labels, b.spec.selector.matchLabels)).length, component).toBe(1);
    }
  });

  it('are all listed in the kustomization, which sets the image in one place', () => {
    const [kustomization] = readYaml(path.join(kubernetesDir, 'kustomization.yaml'));
    expect([...kustomization.resources].sort()).toEqual([...manifestFiles].sort());
    expect(kustomization.images).toEqual([expect.objectContaining({ name: IMAGE })]);
    expect(kustomization.namespace).toBe(ofKind('Namespace')[0].metadata.name);
  });
});

const matches = (labels: Record<string, string>, selector: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);

const NO_COMPOSE = 'neither `docker compose` nor `docker-compose` is installed (scripts/ci-setup.sh installs docker-compose)';
const composeTool = await findCompose();

describe('the Compose file', () => {
  const file = path.join(root, 'deploy/compose.yaml');
  const [compose] = readYaml(file);

  it.skipIf(composeTool === null && process.env.CI !== 'true')(
    `is valid Compose (docker-compose config)${composeTool ? '' : `: not run, ${NO_COMPOSE}`}`,
    async () => {
      if (composeTool === null) throw new Error(NO_COMPOSE);
      const { command, args } = composeTool;
      const env = {
        ...process.env,
        POSTGRES_PASSWORD: 'checked',
        AGENT_PLATFORM_SECRET_KEY: 'checked',
        AGENT_PLATFORM_API_KEYS: 'admin@acme:checked-key-0123456789',
      };
      const { stdout } = await run(command, [...args, '--file', file, 'config'], { env, cwd: path.dirname(file) });
      expect(stdout).toContain('agent-platform/server');
      // With the Docker-sandboxes overlay: both services get the socket and the setting.
      const overlay = path.join(path.dirname(file), 'compose.docker-sandboxes.yaml');
      const merged = await run(command, [...args, '--file', file, '--file', overlay, 'config'], {
        env: { ...env, DOCKER_GID: '999' },
        cwd: path.dirname(file),
      });
      const { services } = parse(merged.stdout);
      for (const name of ['api', 'worker']) {
        expect(services[name].environment.AGENT_PLATFORM_SANDBOX, name).toBe('docker');
        expect(services[name].environment.DATABASE_URL, name).toMatch(/@postgres:5432\//);
        expect(services[name].volumes.map((v: string | { source: string }) => (typeof v === 'string' ? v : v.source)).join(' '), name).toContain(
          '/var/run/docker.sock',
        );
        expect(services[name].group_add.map(String), name).toEqual(['999']);
      }
      // Unset secrets are refused with the variable's name.
      const refused = await run(command, [...args, '--file', file, 'config', '--quiet'], { env: { PATH: process.env.PATH }, cwd: path.dirname(file) }).then(
        () => ({ stderr: 'accepted' }),
        (error: { stderr: string }) => error,
      );
      expect(refused.stderr).toMatch(/POSTGRES_PASSWORD/);
    },
  );

  it('builds the image from the Dockerfile and runs its two commands beside PostgreSQL', () => {
    const { api, worker, postgres } = compose.services;
    for (const service of [api, worker]) {
      expect(service.image).toBe(IMAGE);
      expect(service.build).toEqual({ context: '..', dockerfile: 'Dockerfile' });
      expect(service.depends_on.postgres).toEqual({ condition: 'service_healthy' });
      expect(service.environment.DATABASE_URL).toMatch(/@postgres:5432\//);
    }
    expect(api.command).toEqual(JSON.parse(instruction('CMD')));
    expect(worker.command).toEqual(['node', 'dist/worker.js']);
    expect(api.environment.AGENT_PLATFORM_EXECUTOR).toBe('off');
    expect(api.healthcheck.test.join(' ')).toContain('/health/ready');
    expect(worker.healthcheck).toEqual({ disable: true });
    expect(worker.depends_on.api).toEqual({ condition: 'service_healthy' });
    expect(postgres.healthcheck.test).toContain('pg_isready');
  });
});

/** `docker compose` (v2) or `docker-compose`, whichever answers; null when neither does. */
async function findCompose(): Promise<{ command: string; args: string[] } | null> {
  for (const [command, ...args] of [['docker', 'compose'], ['docker-compose']] as [string, ...string[]][]) {
    try {
      await run(command, [...args, 'version']);
      return { command, args };
    } catch {}
  }
  return null;
}
