/** @module `npm run sync -- [flags]`: the same as `kedge sync [flags]`. */
export {};

process.argv.splice(2, 0, "sync");
await import("./cli/main");
