/** @module `kedge sync --watch` as a child process for end-to-end tests: its records (JSON lines) as they come, and its stderr. */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT, RUN_BUNDLED } from "./harness";

/** The watch as a child process: its records (JSON lines) as they come. */
export class Watcher {
  readonly records: Record<string, unknown>[] = [];
  stderr = "";
  private readonly child: ChildProcess;
  private readonly waiters = new Set<() => void>();
  readonly exited: Promise<number>;

  constructor(args: string[], env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [RUN_BUNDLED, join(ROOT, "scripts", "cli", "main.ts"), "sync", "--watch", ...args], {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let pending = "";
    this.child.stdout!.on("data", (d: Buffer) => {
      pending += d.toString();
      const lines = pending.split("\n");
      pending = lines.pop()!;
      for (const line of lines)
        if (line.startsWith("{") && line.endsWith("}"))
          try {
            this.records.push(JSON.parse(line) as Record<string, unknown>);
          } catch {
            // The final outcome is printed over several lines; only records are one line each.
          }
      for (const w of this.waiters) w();
    });
    this.child.stderr!.on("data", (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code ?? -1)));
  }

  /** The first record after `from` that `test` accepts; fails after `ms`. */
  next(test: (r: Record<string, unknown>) => boolean, from = 0, ms = 20_000): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.records.slice(from).find(test);
        if (!found) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no such record within ${ms} ms; records: ${JSON.stringify(this.records.slice(from))}\n${this.stderr}`));
      }, ms);
      this.waiters.add(check);
      check();
    });
  }

  signal(name: NodeJS.Signals): void {
    this.child.kill(name);
  }
}
