/**
 * @module Which config folder a command reads when `--config` is not given, as git finds its repository from
 * where it runs: the current folder when it holds kedge.yaml (someone working inside `config/`), else
 * `config/`. Run from inside the config folder, the project's wrangler config and local state are usually one
 * folder up: when the current folder has no wrangler config and the one above has, that one is the project
 * (its wrangler config, its `.wrangler/state`), unless those flags were given. Each choice that is not the
 * default is said, so nobody wonders which kedge.yaml was read.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { WRANGLER_CONFIG_NAMES } from "./wrangler-config";

/** The default config folder, relative to where kedge runs. */
export const DEFAULT_CONFIG_DIR = "config";

export interface ProjectDefaults {
  config: string;
  /** The project folder's wrangler config and local state, when the project is the folder above. */
  wranglerConfig?: string;
  persistTo?: string;
  /** What was chosen other than the defaults, for a person (stderr). */
  notes: string[];
}

/** Which of the defaults apply in `cwd` ("." when the folder is where kedge runs). */
export function projectDefaults(cwd = "."): ProjectDefaults {
  if (!existsSync(join(cwd, "kedge.yaml"))) return { config: DEFAULT_CONFIG_DIR, notes: [] };
  const notes = ["using kedge.yaml in the current folder (./kedge.yaml; --config DIR reads another)"];
  const here = WRANGLER_CONFIG_NAMES.some((name) => existsSync(join(cwd, name)));
  const above = WRANGLER_CONFIG_NAMES.map((name) => join("..", name)).find((path) => existsSync(join(cwd, path)));
  if (here || !above) return { config: ".", notes };
  const persistTo = join("..", ".wrangler", "state");
  notes.push(`using the project folder above: ${above} and local state ${persistTo}`);
  return { config: ".", wranglerConfig: above, persistTo, notes };
}
