/**
 * The response header that says which skills a replica serves (its registry digest, see
 * `runtime.registryDigest()`), on every response of the HTTP server: behind a load balancer,
 * a client or an operator with `curl -i` sees which tree answered without asking the replica.
 */
import type http from "node:http";

export const REGISTRY_DIGEST_HEADER = "skillport-registry-digest";

/** Sets the header when the server was given a digest; the digest is cached per snapshot, so this costs a lookup. */
export async function stampRegistryDigest(res: http.ServerResponse, registryDigest: (() => Promise<string>) | undefined): Promise<void> {
  if (registryDigest) res.setHeader(REGISTRY_DIGEST_HEADER, await registryDigest());
}
