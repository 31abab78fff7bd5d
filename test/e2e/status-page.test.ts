/**
 * The status page in a real headless browser (Chromium from the @sparticuz/chromium npm package, driven by
 * puppeteer-core, so `npm ci` brings it): traffic sent through the real Worker to one route served from two
 * clusters is what the page shows per cluster and as the backend's split, from the TrafficStore (shared by
 * every isolate). A screenshot is kept in test/artifacts/.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import chromium from "@sparticuz/chromium";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import { type LocalGateway, startLocalGateway } from "../../scripts/dev/local-gateway";
import { type EchoResponse, type Origin, startOrigin } from "../../scripts/dev/origin-server";
import { endpointSlice, gatewayAndRoute, service, yamlDocs } from "../support/manifests";
import { ROOT, Workspace } from "./harness";

const TOKEN = "status-page-test-token";

const edge = `apiVersion: kedge.dev/v1alpha1
kind: EdgeConfig
metadata: { name: paged }
spec: { gatewayClassName: kedge, clusters: [{ name: east, weight: 2 }, { name: west }] }
`;

const app = (port: number) =>
  yamlDocs(
    gatewayAndRoute({
      namespace: "shop",
      hostname: "shop.example.com",
      route: "shop",
      rules: "    - backendRefs: [{ name: store, port: 8080 }]",
    }),
    service("store", "shop"),
    endpointSlice({ service: "store", name: "store-1", namespace: "shop", port }),
  );

describe("the status page", () => {
  const ws = new Workspace();
  let origins: Origin[];
  let gateway: LocalGateway;
  let browser: Browser;

  beforeAll(async () => {
    origins = await Promise.all(
      ["east", "west"].map((cluster) => startOrigin({ cluster, endpoint: `store-${cluster}`, backends: ["store"] })),
    );
    ws.write({ "kedge.yaml": edge, "clusters/east/app.yaml": app(origins[0]!.port), "clusters/west/app.yaml": app(origins[1]!.port) });
    const synced = await ws.sync();
    if (synced.code !== 0) throw new Error(synced.stderr + synced.stdout);
    gateway = await startLocalGateway({
      persistTo: ws.state,
      vars: { TABLE_REFRESH_SECONDS: "0", KEDGE_TABLE: "paged", KEDGE_STATUS_TOKEN: TOKEN, KEDGE_TRAFFIC_FLUSH_SECONDS: "0" },
      scriptPath: inject("workerBundle"),
    });
    browser = await puppeteer.launch({ args: chromium.args, executablePath: await chromium.executablePath(), headless: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.dispose();
    await Promise.all((origins ?? []).map((o) => o.close()));
    ws.remove();
  });

  it("shows the requests per cluster and the backend's split that the traffic made", async ({ expect }) => {
    const answered: Record<string, number> = {};
    for (let i = 0; i < 60; i++) {
      const response = await gateway.miniflare.dispatchFetch("http://shop.example.com/item");
      const cluster = ((await response.json()) as EchoResponse).cluster;
      answered[cluster] = (answered[cluster] ?? 0) + 1;
    }
    expect(Object.keys(answered).sort()).toEqual(["east", "west"]);

    const page = await browser.newPage();
    await page.setExtraHTTPHeaders({ authorization: `Bearer ${TOKEN}` });
    const response = await page.goto(new URL("/.well-known/kedge/status", gateway.url).href);
    expect(response?.status()).toBe(200);
    const shown = await page.$$eval("#clusters tr[data-cluster]", (rows) =>
      Object.fromEntries(rows.map((r) => [r.getAttribute("data-cluster"), Number(r.getAttribute("data-requests"))])),
    );
    expect(shown).toEqual(answered);
    const split = await page.$$eval('.split[data-backend^="Service/east,west/shop/store"] .segment', (segments) =>
      segments.map((s) => [s.getAttribute("data-cluster"), Number(s.getAttribute("data-requests")), (s as HTMLElement).style.width]),
    );
    expect(split.map(([cluster, requests]) => [cluster, requests])).toEqual([
      ["east", answered.east],
      ["west", answered.west],
    ]);
    expect(await page.$eval("h1", (h) => h.textContent)).toMatch(/^kedge — table paged@\w{20}$/);
    mkdirSync(join(ROOT, "test", "artifacts"), { recursive: true });
    await page.screenshot({ path: join(ROOT, "test", "artifacts", "status-page.png"), fullPage: true });

    // Without the token there is no page.
    const anonymous = await browser.newPage();
    expect((await anonymous.goto(new URL("/.well-known/kedge/status", gateway.url).href))?.status()).toBe(401);
  });
});
