import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

process.env.WRANGLER_SEND_METRICS ??= "false";

/**
 * End-to-end files whose verdicts ride on a clock (Cron ticks and canary windows, Lease durations, a watch's
 * staleness): they run last, one at a time, with the machine to themselves. Every other file shares two workers.
 */
const TIMED_E2E = [
  "test/e2e/canary.test.ts",
  "test/e2e/canary-watch.test.ts",
  "test/e2e/controller.test.ts",
  "test/e2e/live-clusters.test.ts",
  "test/e2e/watch.test.ts",
];
/** Two at a time in the first group: a test file mostly waits on processes it spawned (Node, workerd). */
const SHARED = { maxWorkers: 2, sequence: { groupOrder: 0 } };
const e2e = {
  environment: "node",
  globalSetup: ["./test/e2e/global-setup.ts"],
  testTimeout: 60_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    projects: [
      {
        test: { name: "unit", include: ["test/unit/**/*.test.ts"], environment: "node", ...SHARED },
      },
      {
        plugins: [
          cloudflareTest({
            main: "./src/index.ts",
            wrangler: { configPath: "./test/worker/wrangler.toml" },
            miniflare: {
              cf: false,
              // Stands in for a Workers mTLS certificate binding (a Fetcher that presents a client
              // certificate); Miniflare cannot present one, so this one answers who it was called as.
              serviceBindings: {
                PARTNER_MTLS: (request: Request) => Response.json({ via: "PARTNER_MTLS", url: request.url }),
              },
            },
          }),
        ],
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          globalSetup: ["./test/worker/global-setup.ts"],
          ...SHARED,
        },
      },
      { test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], exclude: TIMED_E2E, ...e2e, ...SHARED } },
      { test: { name: "e2e-timed", include: TIMED_E2E, ...e2e, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
