/**
 * @module CPU time of a child process (Linux /proc), to report what each request costs the runtime:
 * it varies far less between runs than requests per second on a shared machine.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";

function clockTicksPerSecond(): number {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** Reads the CPU milliseconds (user + system) used so far by this process's child named `name`; null off Linux or when there is none. */
export function childCpuClock(name: string): (() => number) | null {
  if (!existsSync("/proc/self/stat")) return null;
  const pid = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .find((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return comm === name && ppid === process.pid;
      } catch {
        return false;
      }
    });
  if (!pid) return null;
  const msPerTick = 1000 / clockTicksPerSecond();
  return () => {
    // Fields after the command: state ppid ... utime (12th) stime (13th).
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * msPerTick;
  };
}
