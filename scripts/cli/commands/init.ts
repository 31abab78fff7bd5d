/**
 * @module `kedge init [DIR]`: scaffolds a project that `kedge dev` serves and `wrangler deploy` deploys: a
 * wrangler config whose `main` is the installed package's Worker (with the KV namespace, Durable Objects
 * and Cron Trigger the Worker needs), config/kedge.yaml (with its JSON Schema line for editors), one
 * cluster folder with a minimal Gateway, HTTPRoute, Service and EndpointSlice, .dev.vars.example and a
 * .gitignore. Paths to the package are relative to the file naming them, so the project can be committed.
 * It never overwrites a file unless --force.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fromPackage, packageRoot } from "../../lib/package-files";
import { UserError } from "../../lib/user-error";
import { command, EXIT } from "../command";

interface InitOptions {
  force?: boolean;
}

/** The templates: dist/templates in the package, scripts/cli/templates in the repository. */
function templatesDir(): string {
  const root = packageRoot();
  const packaged = join(root, "dist", "templates");
  return existsSync(packaged) && fromPackage() ? packaged : join(root, "scripts", "cli", "templates");
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path, `${prefix}${name}/`) : [`${prefix}${name}`];
  });
}

/** Where a template goes: dotfiles are kept without their dot (npm leaves a packed .gitignore out). */
const targetOf = (template: string) =>
  template === "gitignore" ? ".gitignore" : template === "dev.vars.example" ? ".dev.vars.example" : template;

/**
 * kedge's package folder as the project reaches it: the `node_modules/kedge` that Node finds from the
 * project folder (a link to kedge's folder, as pnpm makes, counts; its path is kept, not the link's
 * target). Run from elsewhere (npx's cache, a global install), the package the project will install
 * (`installed: false`); in this repository, the repository. `project` is a real path (no symbolic links),
 * so `..` in a path made from it climbs the folders it names (/tmp is a link on macOS).
 */
function kedgeFrom(project: string): { dir: string; installed: boolean } {
  const root = packageRoot();
  const real = realpathSync(root);
  for (let dir = project; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", "kedge");
    if (existsSync(candidate) && realpathSync(candidate) === real) return { dir: candidate, installed: true };
    if (dirname(dir) === dir) break;
  }
  return fromPackage() ? { dir: join(project, "node_modules", "kedge"), installed: false } : { dir: real, installed: true };
}

/** `to` as the file `file` names it: relative to the file's folder, with `/` (wrangler and editors read it on any machine). */
const pathFrom = (file: string, to: string): string => relative(dirname(file), to).split(sep).join("/");

/** The project folder, created when missing, as a real path; a folder that cannot be made is a UserError. */
function realProject(project: string): string {
  try {
    mkdirSync(project, { recursive: true });
    return realpathSync(project);
  } catch (error) {
    throw new UserError(`kedge init cannot make ${project}: ${(error as Error).message}`, "init a folder you can write");
  }
}

export const initCommand = command<InitOptions>({
  name: "init",
  summary: "scaffold a project: wrangler config, config/kedge.yaml, one cluster's manifests",
  description:
    "Writes, in DIR (default: the current folder), a wrangler.toml whose main is the installed kedge Worker (KV namespace ROUTES, Durable Objects SESSIONS, HEALTH and TRAFFIC, a once-a-minute Cron Trigger), config/kedge.yaml, config/clusters/local/app.yaml (a Gateway, an HTTPRoute, a Service and its EndpointSlice on 127.0.0.1:9901), .dev.vars.example and a .gitignore. `kedge dev` then serves it.",
  arguments: [{ name: "dir", description: "the project folder (created if missing)", required: false }],
  flags: [{ flags: "--force", description: "overwrite files that exist (a .gitignore is only ever added to)" }],
  exitCodes: { 0: "written", 2: "a file exists (without --force), or the folder cannot be written" },
  examples: ["kedge init", "kedge init my-edge && cd my-edge && kedge dev"],
  async run(options, [dir = "."]) {
    const shown = resolve(dir);
    const project = realProject(shown);
    const templates = templatesDir();
    // The Worker the project deploys and the schema editors read, named relative to the files that name
    // them: a committed project works wherever it is checked out and installed.
    const kedge = kedgeFrom(project);
    const worker = join(kedge.dir, fromPackage() ? join("dist", "worker.mjs") : join("src", "index.ts"));
    const schema = join(kedge.dir, "config", "kedge.schema.json");
    const files = filesUnder(templates).map((template) => ({ template, target: targetOf(template) }));
    const existing = files.filter((f) => f.target !== ".gitignore" && existsSync(join(project, f.target))).map((f) => f.target);
    if (existing.length > 0 && !options.force)
      throw new UserError(
        `kedge init would overwrite ${existing.join(", ")} in ${shown}`,
        "pass --force to overwrite them, or init another folder",
      );
    const written: string[] = [];
    for (const { template, target } of files) {
      const path = join(project, target);
      let text = readFileSync(join(templates, template), "utf8")
        .replaceAll("{{WORKER}}", pathFrom(path, worker))
        .replaceAll("{{SCHEMA}}", pathFrom(path, schema));
      if (target === ".gitignore" && existsSync(path)) {
        // Added to, never replaced: only the lines it lacks.
        const lines = readFileSync(path, "utf8").split(/\r?\n/);
        const missing = text.split("\n").filter((l) => l && !lines.includes(l));
        if (missing.length === 0) continue;
        text = `${lines.join("\n").trimEnd()}\n${missing.join("\n")}\n`;
      }
      try {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, text);
      } catch (error) {
        throw new UserError(`kedge init cannot write ${path}: ${(error as Error).message}`, "init a folder you can write");
      }
      written.push(target);
    }
    const cd = dir === "." ? "" : `cd ${dir} && `;
    return {
      code: EXIT.OK,
      data: { project: shown, written },
      text: [
        `kedge init wrote in ${shown}:`,
        ...written.map((f) => `  ${f}`),
        "",
        ...(kedge.installed ? [] : [`kedge is not installed in ${shown}: wrangler.toml names node_modules/kedge/dist/worker.mjs there.`]),
        `Next: ${cd}${kedge.installed ? "" : "npm install kedge wrangler@4.86.0 --save-exact && "}npx kedge dev   (serves it on http://127.0.0.1:8787, with a local origin for 127.0.0.1:9901)`,
      ],
    };
  },
});
