/**
 * Lists in pages against a stand-in API server, as client-go's pager reads them: 500 objects a page joined by
 * continue tokens, and a list whose continue token expired mid-way starts again from its first page.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { KubeApi } from "../../scripts/kube/api-client";
import { listInPages } from "../../scripts/kube/paged-list";
import { readLiveCluster, readable } from "../../scripts/kube/read-cluster";
import { KubeStandIn, kubeconfigFor } from "../support/kube-api-stand-in";
import { loopbackSlice, resource } from "../support/stand-in-resources";

const SLICES = 1234;

describe("lists in pages", () => {
  let s: KubeStandIn;
  let api: KubeApi;
  const cluster = () => {
    const file = join(mkdtempSync(join(tmpdir(), "kedge-pages-")), "kubeconfig.json");
    writeFileSync(file, kubeconfigFor({ big: s.url }, "t"));
    return {
      name: "big",
      kubeContext: "big",
      kubeconfig: file,
      weight: 1,
      state: "Serving" as const,
      priority: 0,
      endpoints: { from: "EndpointSlice" as const, scheme: "http" as const },
    };
  };

  beforeAll(async () => {
    const slices = Array.from({ length: SLICES }, (_, i) => loopbackSlice("shop", `svc-${i}`, `svc-${i}-abc`, 9000));
    s = await KubeStandIn.start([resource("EndpointSlice", slices)], { token: "t" });
    api = KubeApi.forCluster(cluster());
  });
  afterAll(() => s.close());

  it("reads 1234 EndpointSlices in three pages of at most 500", async ({ expect }) => {
    const before = s.requests.length;
    const listed = await listInPages((path) => readable(api, path), "/apis/discovery.k8s.io/v1/endpointslices");
    expect(listed.pages.map((p) => p.list.items?.length)).toEqual([500, 500, 234]);
    expect(new Set(listed.pages.flatMap((p) => p.list.items!.map((o) => o.metadata?.name))).size).toBe(SLICES);
    expect(s.requests.slice(before)).toEqual([
      "/apis/discovery.k8s.io/v1/endpointslices",
      "/apis/discovery.k8s.io/v1/endpointslices?continue",
      "/apis/discovery.k8s.io/v1/endpointslices?continue",
    ]);
    expect(listed.resourceVersion).toMatch(/^\d+$/);
  });

  it("starts again from the first page when a continue token has expired (410)", async ({ expect }) => {
    let pages = 0;
    const listed = await listInPages(async (path) => {
      // The server compacts after the first page, once.
      if (pages++ === 1) s.expireContinueTokens();
      return readable(api, path);
    }, "/apis/discovery.k8s.io/v1/endpointslices");
    expect(listed.pages.map((p) => p.list.items?.length)).toEqual([500, 500, 234]);
    expect(pages).toBe(5); // page 1, an expired page 2, then pages 1 to 3 again
  });

  it("a one-shot read of the cluster gets every object through the pages", async ({ expect }) => {
    const read = await readLiveCluster(cluster());
    expect(read.manifests.filter((m) => m.kind === "EndpointSlice")).toHaveLength(SLICES);
  });
});
