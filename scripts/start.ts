/**
 * @module `npm start`: `kedge dev` on the example multi-cluster config in config/ (origins included), on
 * http://127.0.0.1:8787. KEDGE_CONFIG, KEDGE_PERSIST_TO and PORT choose another config, state folder or port;
 * so do `npm start -- --config DIR --persist-to DIR --port N`, and any other flag of `kedge dev` passes through.
 */
export {};

const env = process.env;
const given = process.argv.slice(2);
const defaults: [flag: string, value: string][] = [
  ["--config", env.KEDGE_CONFIG ?? "config"],
  ["--persist-to", env.KEDGE_PERSIST_TO ?? ".wrangler/state"],
  ["--port", env.PORT ?? "8787"],
];
// A flag given on the command line wins over its default (as `--flag value` or `--flag=value`).
const isGiven = (flag: string) => given.some((arg) => arg === flag || arg.startsWith(`${flag}=`));
process.argv.splice(2, given.length, "dev", ...defaults.filter(([flag]) => !isGiven(flag)).flat(), ...given);
await import("./cli/main");
