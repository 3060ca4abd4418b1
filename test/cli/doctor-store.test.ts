import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { announceReplica } from "../../src/session/replicas.js";
import { openSessionStore } from "../../src/session/open-store.js";
import { postgresStore } from "../../src/session/store-postgres.js";
import { freshDatabase } from "../support/postgres.js";
import { startHttpServer } from "../support/mcp-server.js";
import { writeSkill } from "../support/tmp.js";
import { jsonOf, runCli, sandbox } from "./cli-process.js";

const db = await freshDatabase();
const skip = db.skip ?? false;

interface DoctorJson {
  errors: number;
  warnings: number;
  diagnostics: Array<{ severity: string; code: string; message: string; path: string }>;
  replicas: { store: string; digests: Array<{ registryDigest: string; replicas: Array<{ replica: string }> }> };
}

function tree(): { cwd: string; env: Record<string, string>; root: string } {
  const box = sandbox();
  const root = path.join(box.cwd, "skills");
  writeSkill(root, "alpha", "name: alpha\ndescription: First skill.");
  return { cwd: box.cwd, env: box.env, root };
}

test("doctor --store reports replicas serving different digests as an error, and agreeing ones as fine", { skip }, async () => {
  const t = tree();
  const agreeing = (await freshDatabase()).url!;
  const diverging = (await freshDatabase()).url!;
  const silent = (await freshDatabase()).url!;
  const stores = await Promise.all([postgresStore(agreeing), postgresStore(diverging), postgresStore(silent)]);
  try {
    await announceReplica(stores[0]!, "host-a:1:8080", "sha256-same");
    await announceReplica(stores[0]!, "host-b:2:8080", "sha256-same");
    await announceReplica(stores[1]!, "host-a:1:8080", "sha256-one");
    await announceReplica(stores[1]!, "host-b:2:8080", "sha256-two");
    await announceReplica(stores[1]!, "host-c:3:8080", "sha256-one");
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
  const opts = { cwd: t.cwd, env: t.env };

  const ok = await runCli(["doctor", "--root", "skills", "--store", agreeing, "--json"], opts);
  assert.equal(ok.code, 0, ok.stderr);
  const okReport = jsonOf<DoctorJson>(ok);
  // The replicas agree with each other; this machine serves the tree's own digest, not theirs.
  assert.deepEqual(okReport.diagnostics.map((d) => [d.severity, d.code]), [["warning", "replica_digest_differs"]]);
  assert.deepEqual(okReport.replicas.digests.map((d) => [d.registryDigest, d.replicas.map((r) => r.replica)]), [["sha256-same", ["host-a:1:8080", "host-b:2:8080"]]]);

  const split = await runCli(["doctor", "--root", "skills", "--store", diverging], opts);
  assert.equal(split.code, 1);
  assert.match(
    split.stdout,
    /\[replicas_diverge\]\n {8}replicas of this store serve different skills: sha256-one \(2 replicas: host-a:1:8080, host-c:3:8080\); sha256-two \(1 replica: host-b:2:8080\)\n/,
  );

  const none = jsonOf<DoctorJson>(await runCli(["doctor", "--root", "skills", "--store", silent, "--json"], opts));
  assert.deepEqual(none.diagnostics.map((d) => [d.severity, d.code]), [["warning", "replicas_unseen"]]);
});

test("doctor --store with a store it cannot open is a usage error (exit 2)", { skip }, async () => {
  const t = tree();
  const url = new URL(db.url!);
  url.pathname = "/no_such_database_here";
  const run = await runCli(["doctor", "--root", "skills", "--store", url.toString()], { cwd: t.cwd, env: t.env });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /^error: --store: cannot open the session store at postgres:\/\/.*no_such_database_here/m);
});

test("a replica serving a bundle on a store is found by doctor --store with the bundle's digest", { skip }, async () => {
  const t = tree();
  const opts = { cwd: t.cwd, env: t.env };
  const url = (await freshDatabase()).url!;
  const bundle = (await runCli(["bundle", "skills", "bundles"], opts)).stdout.trim();
  const replica = await startHttpServer(["--bundle", bundle, "--store", url], { cwd: t.cwd, env: { ...process.env, ...t.env } as Record<string, string> });
  try {
    const run = await runCli(["doctor", "--bundle", bundle, "--store", url, "--json"], opts);
    assert.equal(run.code, 0, run.stderr);
    const report = jsonOf<DoctorJson & { registryDigest: string }>(run);
    assert.equal(report.registryDigest, path.basename(bundle));
    assert.deepEqual(report.replicas.digests.map((d) => [d.registryDigest, d.replicas.length]), [[path.basename(bundle), 1]]);
    assert.match(report.replicas.digests[0]!.replicas[0]!.replica, new RegExp(`:${replica.url.port}$`));
  } finally {
    await replica.stop();
  }
});

test("doctor --store lists the replica groups in its text report and says whether this machine's digest is among them", async () => {
  const t = tree();
  const opts = { cwd: t.cwd, env: t.env };
  const own = jsonOf<{ registryDigest: string }>(await runCli(["doctor", "--root", "skills", "--json"], opts)).registryDigest;
  const same = path.join(t.cwd, "store-same");
  const other = path.join(t.cwd, "store-other");
  const stores = await Promise.all([openSessionStore(same), openSessionStore(other)]);
  try {
    await announceReplica(stores[0]!, "host-a:1:8080", own);
    await announceReplica(stores[0]!, "host-b:2:8080", own);
    await announceReplica(stores[1]!, "host-c:3:8080", "sha256-elsewhere");
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }

  const agreeing = await runCli(["doctor", "--root", "skills", "--store", same], opts);
  assert.equal(agreeing.code, 0, agreeing.stderr);
  assert.match(agreeing.stdout, new RegExp(`^replicas of ${escape(same)} heard from in the last 3 minutes:\\n  ${escape(own)} \\(this machine's digest\\): host-a:1:8080, host-b:2:8080\\nthis machine: ${escape(own)} \\(a replica serves the same\\)\\n`, "m"));

  const differing = await runCli(["doctor", "--root", "skills", "--store", other], opts);
  assert.equal(differing.code, 0, differing.stderr);
  assert.match(differing.stdout, /\[replica_digest_differs\]\n {8}this machine's skills \(.*\) are not what any replica of this store serves \(sha256-elsewhere\)\n/);
  assert.match(differing.stdout, /^  sha256-elsewhere: host-c:3:8080\nthis machine: .* \(no replica serves it\)\n/m);
  const json = jsonOf<{ replicas: { thisMachine: { registryDigest: string; servedByAReplica: boolean } } }>(await runCli(["doctor", "--root", "skills", "--store", other, "--json"], opts));
  assert.deepEqual(json.replicas.thisMachine, { registryDigest: own, servedByAReplica: false });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
