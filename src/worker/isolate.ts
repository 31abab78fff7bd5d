/**
 * @module What an isolate keeps between the requests it serves, on one object made in src/index.ts and
 * handed to the app and the Cron handler: the tables it loaded, its health view (the active checks' record
 * and its own passive ejections), its request counts for the status page, the retry budgets it spent, and
 * the sessions it verified or issued. Tests make one each to start from a fresh isolate.
 */
import { SessionCache } from "../session/session-cache";
import { HealthView } from "./health-view";
import { RetryBudgets } from "./retry-budget";
import { TableLoader } from "./table-loader";
import { TrafficCounter } from "./traffic-counter";

export class Isolate {
  readonly health = new HealthView();
  readonly tables = new TableLoader(this.health);
  readonly traffic = new TrafficCounter();
  /** Per backend, what this isolate sent (budgets are per isolate, like passive health). */
  readonly budgets = new RetryBudgets();
  /** Sessions this isolate verified or issued, and whether it said the session secret is missing. */
  readonly sessions: SessionCache & { warnedMissingKey?: boolean } = new SessionCache();
}
