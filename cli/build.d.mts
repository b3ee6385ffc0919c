/** Types of `cli/build.mjs` (the CLI bundle builder, docs/cli.md#start-up). */
/** Absolute path of the bundle, `cli/dist/skillgate.mjs`. */
export declare const BUNDLE: string;
/** True when the bundle is missing or older than a source. */
export declare function stale(): boolean;
/** Writes the bundle. */
export declare function build(): Promise<void>;
