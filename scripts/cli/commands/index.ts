/** @module Every kedge command, in the order `kedge --help` lists them. */
import type { KedgeCommand } from "../command";
import { completionCommand } from "./completion";
import { devCommand } from "./dev";
import { initCommand } from "./init";
import { manifestsCommand } from "./manifests";
import { validateCommand } from "./validate";
import { diffCommand } from "./diff";
import { explainCommand } from "./explain";
import { historyCommand } from "./history";
import { promoteCommand } from "./promote";
import { rollbackCommand } from "./rollback";
import { statusCommand } from "./status";
import { syncCommand } from "./sync";

export const COMMANDS: readonly KedgeCommand[] = [
  initCommand,
  devCommand,
  validateCommand,
  syncCommand,
  diffCommand,
  promoteCommand,
  rollbackCommand,
  historyCommand,
  explainCommand,
  statusCommand,
  manifestsCommand,
  completionCommand,
];
