/** @module Gateway API durations (GEP-2257): `1h`, `500ms`, `1m30s`; `0s` means "disabled". */
/** Milliseconds, or null when the text is not a GEP-2257 duration. */
export declare function parseDuration(text: string): number | null;
