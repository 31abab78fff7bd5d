import { type Manifest } from "./manifest";
/** A file that cannot be read as YAML/JSON: the sync stops before writing anything. */
export declare class ManifestSyntaxError extends Error {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly detail: string;
  name: string;
  constructor(file: string, line: number, column: number, detail: string);
}
/** An object without apiVersion/kind/metadata.name: skipped with a warning, not fatal. */
export interface SkippedDocument {
  file: string;
  line: number;
  message: string;
}
export interface ParsedFile {
  manifests: Manifest[];
  skipped: SkippedDocument[];
}
/** Parses one file's text. Throws ManifestSyntaxError on a syntax error; everything else is data. */
export declare function parseManifestFile(cluster: string, file: string, text: string): ParsedFile;
