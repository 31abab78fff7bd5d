import type { SyncOptions } from "./args";
export interface Output {
  out(text: string): void;
  err(text: string): void;
}
export declare const EXIT: {
  readonly OK: 0;
  readonly REJECTED: 1;
  readonly UNUSABLE_INPUT: 2;
};
export declare function runSync(options: SyncOptions, io: Output): Promise<number>;
