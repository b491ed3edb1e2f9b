// Tests of deploy/kubernetes: every manifest validates offline (validate.mjs),
// the validator rejects what it must (wrong type, missing required field,
// misspelled field at several depths, unknown kind), and the manifests agree
// with each other and with blkperf's flags (selectors, ports, the Job's
// dns:/// target, TLS flags, devices in the allow lists, the grpc probes on
// the health listener, the cert-manager Certificates behind the mounted
// Secrets, the Job's report volume, Prometheus' read access).
//
//   MANIFESTS="a.yaml b.yaml" node --test validate_test.mjs
import assert from "node:assert/strict";
import { test } from "node:test";
import { validateDocument, validateFile } from "./validate.mjs";

const FILES = (process.env.MANIFESTS ?? "").split(/\s+/).filter(Boolean);
const EXPECTED_KINDS = ["Certificate", "Certificate", "Certificate", "ConfigMap",
                        "DaemonSet", "Issuer", "Issuer", "Job", "Namespace",
                        "NetworkPolicy", "PersistentVolumeClaim", "PodMonitor",
                        "PriorityClass", "Role", "RoleBinding", "Service"];

async function loadAll() {
  const docs = [];
  for (const f of FILES) {
    for (const r of await validateFile(f)) docs.push({ file: f, ...r });
  }
  return docs;
}

const byKind = async (kind) => (await loadAll()).find((d) => d.doc?.kind === kind).doc;
const clone = (o) => structuredClone(o);

test("every manifest validates", async () => {
  const docs = await loadAll();
  assert.deepEqual(docs.map((d) => d.doc.kind).sort(), EXPECTED_KINDS);
  for (const d of docs) {
    assert.deepEqual(d.errors, [], `${d.file}#${d.index}`);
  }
});

test("a wrong type is rejected, naming the field", async () => {
  const ds = clone(await byKind("DaemonSet"));
  ds.spec.template.spec.containers[0].ports[0].containerPort = "grpc";
  const errors = await validateDocument(ds);
  assert.equal(errors.length, 1, errors.join("\n"));
  assert.match(errors[0], /containers\/0\/ports\/0\/containerPort must be integer/);
});

test("a missing required field is rejected", async () => {
  const ds = clone(await byKind("DaemonSet"));
  delete ds.spec.template.spec.containers[0].name;
  const errors = await validateDocument(ds);
  assert.ok(errors.some((e) => /containers\/0 must have required property '?name'?/.test(e)),
            errors.join("\n"));
});

test("misspelled fields are rejected at every depth", async () => {
  const cases = [
    ["DaemonSet", (d) => { d.spec.template.spec.tolerration = []; },
     "spec.template.spec.tolerration"],
    ["DaemonSet", (d) => { d.spec.template.spec.containers[0].securityContext.capabilities.ad = []; },
     "spec.template.spec.containers[0].securityContext.capabilities.ad"],
    ["DaemonSet", (d) => { d.spec.template.spec.volumes.at(-1).hostPath.typ = "BlockDevice"; },
     (d) => `spec.template.spec.volumes[${d.spec.template.spec.volumes.length - 1}].hostPath.typ`],
    ["PodMonitor", (d) => { d.spec.podMetricsEndpoints[0].relabelings[0].sourceLabel = []; },
     "spec.podMetricsEndpoints[0].relabelings[0].sourceLabel"],
    ["Service", (d) => { d.spec.clusterIp = "None"; }, "spec.clusterIp"],
    ["Job", (d) => { d.spec.template.spec.containers[0].arg = []; },
     "spec.template.spec.containers[0].arg"],
    ["Namespace", (d) => { d.metadata.label = {}; }, "metadata.label"],
    ["Certificate", (d) => { d.spec.privateKey.algorithmm = "ECDSA"; },
     "spec.privateKey.algorithmm"],
    ["Issuer", (d) => { d.spec.selfsigned = {}; }, "spec.selfsigned"],
  ];
  for (const [kind, mutate, where] of cases) {
    const doc = clone(await byKind(kind));
    mutate(doc);
    const errors = await validateDocument(doc);
    const expected = typeof where === "function" ? where(doc) : where;
    assert.deepEqual(errors, [`${expected}: unknown field`], kind);
  }
});

test("a kind without a model is an error, not skipped", async () => {
  assert.match((await validateDocument({ apiVersion: "example.com/v1", kind: "X" }))[0],
               /no model/);
  assert.match((await validateDocument({ apiVersion: "apps/v1", kind: "Nope" }))[0],
               /no model/);
});

function podLabels(ds) { return ds.spec.template.metadata.labels; }

function matches(selector, labels) {
  const entries = Object.entries(selector);
  return entries.length > 0 && entries.every(([k, v]) => labels[k] === v);
}

test("service, monitor and job point at the daemonset", async () => {
  const ds = await byKind("DaemonSet");
  const svc = await byKind("Service");
  const pm = await byKind("PodMonitor");
  const job = await byKind("Job");
  const ns = (await byKind("Namespace")).metadata.name;
  for (const d of [ds, svc, pm, job]) assert.equal(d.metadata.namespace, ns);
  assert.ok(matches(ds.spec.selector.matchLabels, podLabels(ds)));
  assert.ok(matches(svc.spec.selector, podLabels(ds)));
  assert.ok(matches(pm.spec.selector.matchLabels, podLabels(ds)));
  assert.equal(svc.spec.clusterIP, "None", "the Service must be headless");
  const ports = ds.spec.template.spec.containers[0].ports;
  const portNames = ports.map((p) => p.name);
  assert.ok(portNames.includes(pm.spec.podMetricsEndpoints[0].port));
  for (const p of svc.spec.ports) assert.ok(portNames.includes(p.targetPort));
  const grpc = svc.spec.ports.find((p) => p.name === "grpc").port;
  const args = job.spec.template.spec.containers[0].args;
  assert.ok(args.includes(`--hosts=dns:///${svc.metadata.name}.${ns}.svc.cluster.local:${grpc}`),
            args.join(" "));
  assert.deepEqual(args.slice(args.indexOf("fleet"), args.indexOf("fleet") + 2),
                   ["fleet", "run"]);
});

test("the network policy lets in the Job (gRPC) and Prometheus (metrics) only", async () => {
  const ds = await byKind("DaemonSet");
  const job = await byKind("Job");
  const np = await byKind("NetworkPolicy");
  assert.ok(matches(np.spec.podSelector.matchLabels, podLabels(ds)));
  assert.deepEqual(np.spec.policyTypes, ["Ingress", "Egress"]);
  assert.deepEqual(np.spec.egress, []);
  const portNames = ds.spec.template.spec.containers[0].ports.map((p) => p.name);
  const rules = np.spec.ingress;
  assert.equal(rules.length, 2);
  for (const r of rules) {
    assert.equal(r.ports.length, 1);
    assert.ok(portNames.includes(r.ports[0].port), r.ports[0].port);
  }
  const grpc = rules.find((r) => r.ports[0].port === "grpc");
  assert.ok(matches(grpc.from[0].podSelector.matchLabels,
                    job.spec.template.metadata.labels));
  const metrics = rules.find((r) => r.ports[0].port === "metrics");
  assert.ok(metrics.from[0].namespaceSelector);
});

// The mounted file a flag names: [volume, key] of the volumeMount whose
// mountPath is the flag value's directory.
function mountedFile(pod, container, path) {
  const dir = path.slice(0, path.lastIndexOf("/"));
  const mount = container.volumeMounts.find((m) => m.mountPath === dir);
  if (!mount) return null;
  return [pod.volumes.find((v) => v.name === mount.name), path.slice(dir.length + 1)];
}

test("daemon: a priority class of its own that preempts nothing; memory above the pinned buffers", async () => {
  const ds = await byKind("DaemonSet");
  const pod = ds.spec.template.spec;
  const pc = await byKind("PriorityClass");
  assert.equal(pod.priorityClassName, pc.metadata.name);
  assert.equal(pc.preemptionPolicy, "Never");
  assert.ok(pc.value < 0, "a benchmark ranks below ordinary pods");
  const c = pod.containers[0];
  const flag = (name) => Number(c.args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1]);
  const gib = (q) => Number(q.replace(/Gi$/, "")) * 2 ** 30;
  const pinned = flag("max_workloads") * flag("max_buffer_bytes");
  assert.ok(gib(c.resources.limits.memory) >= pinned + 2 ** 30,
            `memory limit ${c.resources.limits.memory} leaves < 1 GiB above ${pinned} pinned bytes`);
  assert.equal(c.resources.requests.memory, c.resources.limits.memory);
});

test("daemon: TLS always with a roles file, shipped as a ConfigMap it mounts", async () => {
  const ds = await byKind("DaemonSet");
  const pod = ds.spec.template.spec;
  const c = pod.containers[0];
  const flag = (name) => c.args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
  assert.ok(flag("tls_cert"), "the daemonset gives no --tls_cert");
  const roles = flag("roles_file");
  assert.ok(roles, "--tls_cert without --roles_file: blkperfd exits 1 at start");
  const [volume, key] = mountedFile(pod, c, roles) ?? [];
  assert.ok(volume?.configMap, `--roles_file=${roles} is not in a mounted ConfigMap`);
  const cm = (await loadAll()).find((d) => d.doc.kind === "ConfigMap" &&
                                    d.doc.metadata.name === volume.configMap.name)?.doc;
  assert.ok(cm, `ConfigMap ${volume.configMap.name} is not shipped`);
  assert.equal(cm.metadata.namespace, ds.metadata.namespace);
  const lines = cm.data[key].split("\n").map((l) => l.replace(/#.*/, "").trim())
    .filter(Boolean).map((l) => l.split(/\s+/));
  assert.ok(lines.some(([role]) => role === "operator"), "no operator for the fleet Job");
});

test("daemon: TLS, probe, resources, devices in the allow lists", async () => {
  const ds = await byKind("DaemonSet");
  const pod = ds.spec.template.spec;
  const c = pod.containers[0];
  for (const flag of ["--tls_cert=", "--tls_key=", "--tls_client_ca="]) {
    assert.ok(c.args.some((a) => a.startsWith(flag)), flag);
  }
  const job = (await byKind("Job")).spec.template.spec.containers[0];
  for (const flag of ["--tls_ca=", "--tls_cert=", "--tls_key="]) {
    assert.ok(job.args.some((a) => a.startsWith(flag)), `job ${flag}`);
  }
  // The kubelet's own grpc probes, on the plaintext health-only listener.
  const health = c.args.find((a) => a.startsWith("--health_listen="));
  assert.ok(health, "no --health_listen for the grpc probes");
  const healthPort = Number(health.split(":").at(-1));
  assert.ok(c.ports.some((p) => p.containerPort === healthPort));
  for (const probe of [c.readinessProbe, c.livenessProbe]) {
    assert.deepEqual(Object.keys(probe).filter((k) => !/Seconds|Threshold/.test(k)),
                     ["grpc"]);
    assert.equal(probe.grpc.port, healthPort);
  }
  assert.ok(pod.nodeSelector && pod.tolerations.length > 0);
  for (const r of ["cpu", "memory"]) {
    assert.ok(c.resources.requests[r] && c.resources.limits[r], r);
  }
  assert.deepEqual(c.securityContext.capabilities.drop, ["ALL"]);
  // Pinned buffers, and the fleet start's real-time wait (SCHED_FIFO 1).
  assert.deepEqual(c.securityContext.capabilities.add, ["IPC_LOCK", "SYS_NICE"]);
  const allowed = c.args.find((a) => a.startsWith("--allow_read_paths="))
      .split("=")[1].split(",");
  const mounts = new Map(c.volumeMounts.map((m) => [m.name, m.mountPath]));
  const devices = pod.volumes.filter((v) => v.hostPath);
  assert.ok(devices.length > 0);
  for (const v of devices) {
    assert.equal(v.hostPath.type, "BlockDevice", v.name);
    assert.equal(mounts.get(v.name), v.hostPath.path, `${v.name} mounted`);
    assert.ok(allowed.includes(v.hostPath.path), `${v.hostPath.path} allowed`);
  }
  for (const v of pod.volumes) assert.ok(mounts.has(v.name), `${v.name} unused`);
  // The Job benchmarks a device every daemon lets it read.
  const target = job.args.find((a) => a.startsWith("--target=")).split("=")[1];
  assert.ok(allowed.includes(target), `job --target=${target} not allowed`);
});

// The Secret a Certificate writes: [certificate, its issuer chain's CA].
test("cert-manager issues the Secrets the daemons and the Job mount", async () => {
  const docs = (await loadAll()).map((d) => d.doc);
  const ns = (await byKind("Namespace")).metadata.name;
  const certs = new Map(docs.filter((d) => d.kind === "Certificate")
                            .map((c) => [c.spec.secretName, c]));
  const issuers = new Map(docs.filter((d) => d.kind === "Issuer")
                              .map((i) => [i.metadata.name, i]));
  for (const c of certs.values()) {
    assert.equal(c.metadata.namespace, ns);
    assert.ok(issuers.has(c.spec.issuerRef.name), c.spec.issuerRef.name);
  }
  const ds = await byKind("DaemonSet");
  const job = await byKind("Job");
  const secrets = (pod) => pod.volumes.filter((v) => v.secret).map((v) => v.secret.secretName);
  const daemonSecrets = secrets(ds.spec.template.spec);
  const jobSecrets = secrets(job.spec.template.spec);
  assert.deepEqual(daemonSecrets, ["blkperfd-tls"]);
  assert.deepEqual(jobSecrets, ["blkperf-operator-tls"]);
  // The daemons': the Service's DNS name (the Job checks it), server auth.
  const svc = await byKind("Service");
  const daemon = certs.get("blkperfd-tls");
  assert.ok(daemon.spec.dnsNames.includes(`${svc.metadata.name}.${ns}.svc.cluster.local`));
  assert.ok(daemon.spec.usages.includes("server auth"));
  // The Job's: the identity the roles file makes operator, client auth.
  const roles = docs.find((d) => d.kind === "ConfigMap").data.roles;
  const operator = roles.split("\n").map((l) => l.replace(/#.*/, "").trim().split(/\s+/))
      .find(([role]) => role === "operator")[1];
  const client = certs.get("blkperf-operator-tls");
  assert.deepEqual(client.spec.uris, [operator]);
  assert.ok(client.spec.usages.includes("client auth"));
  // Both chain to the CA whose Secret the CA issuer signs with.
  for (const c of [daemon, client]) {
    const issuer = issuers.get(c.spec.issuerRef.name);
    assert.ok(certs.get(issuer.spec.ca.secretName)?.spec.isCA, c.metadata.name);
  }
});

test("the Job keeps its report on a volume, stdout free of it, and expires", async () => {
  const job = await byKind("Job");
  const pod = job.spec.template.spec;
  const c = pod.containers[0];
  const report = c.args.find((a) => a.startsWith("--report_file="))?.split("=")[1];
  assert.ok(report, "no --report_file: the report would be in the Job's log");
  const mount = c.volumeMounts.find((m) => report.startsWith(`${m.mountPath}/`));
  const volume = pod.volumes.find((v) => v.name === mount?.name);
  assert.ok(volume?.persistentVolumeClaim, `${report} is not on a persistent volume`);
  const pvc = await byKind("PersistentVolumeClaim");
  assert.equal(volume.persistentVolumeClaim.claimName, pvc.metadata.name);
  assert.ok(job.spec.ttlSecondsAfterFinished > 0);
  // $(JOB_NAME) in the path is an env var of the container.
  for (const [, name] of report.matchAll(/\$\((\w+)\)/g)) {
    assert.ok(c.env.some((e) => e.name === name), name);
  }
});

test("Prometheus in `monitoring` may read the pods it scrapes", async () => {
  const role = await byKind("Role");
  const binding = await byKind("RoleBinding");
  const ns = (await byKind("Namespace")).metadata.name;
  assert.equal(role.metadata.namespace, ns);
  assert.equal(binding.roleRef.name, role.metadata.name);
  assert.ok(role.rules.some((r) => r.resources.includes("pods") && r.verbs.includes("list")));
  const np = await byKind("NetworkPolicy");
  const metrics = np.spec.ingress.find((r) => r.ports[0].port === "metrics");
  assert.equal(binding.subjects[0].namespace,
               metrics.from[0].namespaceSelector.matchLabels["kubernetes.io/metadata.name"]);
});
