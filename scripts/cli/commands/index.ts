/** @module Every kedge command, in the order `kedge --help` lists them. */
import type { KedgeCommand } from "../command";
import { diffCommand } from "./diff";
import { explainCommand } from "./explain";
import { historyCommand } from "./history";
import { rollbackCommand } from "./rollback";
import { statusCommand } from "./status";
import { syncCommand } from "./sync";

export const COMMANDS: readonly KedgeCommand[] = [syncCommand, diffCommand, rollbackCommand, historyCommand, explainCommand, statusCommand];
