import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

process.env.WRANGLER_SEND_METRICS ??= "false";

export default defineConfig({
  test: {
    projects: [
      {
        test: { name: "unit", include: ["test/unit/**/*.test.ts"], environment: "node" },
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
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          globalSetup: ["./test/e2e/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
