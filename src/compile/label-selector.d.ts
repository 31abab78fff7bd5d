/** Returns a predicate over labels, or a problem description when the selector is malformed. */
export declare function compileLabelSelector(raw: unknown): ((labels: Record<string, string>) => boolean) | string;
