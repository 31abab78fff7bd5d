/**
 * @module `npm start`: `kedge dev` on the example multi-cluster config in config/ (origins included), on
 * http://127.0.0.1:8787. KEDGE_CONFIG, KEDGE_PERSIST_TO and PORT choose another config, state folder or port.
 */
export {};

const env = process.env;
process.argv.splice(
  2,
  process.argv.length - 2,
  "dev",
  "--config",
  env.KEDGE_CONFIG ?? "config",
  "--persist-to",
  env.KEDGE_PERSIST_TO ?? ".wrangler/state",
  "--port",
  env.PORT ?? "8787",
);
await import("./cli/main");
