/** @module Deterministic JSON (sorted object keys) so equal tables hash and serialise identically. */
/** JSON with object keys in sorted order and `undefined` fields dropped. */
export declare function canonicalJson(value: unknown): string;
/** Hex SHA-256 of a string, via Web Crypto (present in Node 20 and workerd). */
export declare function sha256Hex(text: string): Promise<string>;
