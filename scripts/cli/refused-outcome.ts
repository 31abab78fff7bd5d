/** @module The outcome of a sync or diff whose compile refused the table: the reason said, the report shown, nothing written. */
import type { CompiledForEdge, CompileSummary } from "./compile-for-edge";
import type { CommandIO, Outcome } from "./command";

export function refusedOutcome(
  checked: CompiledForEdge,
  refusal: NonNullable<CompiledForEdge["refusal"]>,
  io: CommandIO,
): Outcome<CompileSummary & { written: false; refused: string }> {
  io.note(refusal.reason);
  return { code: refusal.code, data: { ...checked.summary, written: false, refused: refusal.reason }, text: checked.report };
}
