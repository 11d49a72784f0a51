// Types of build/renderer.mjs.

/** Where the renderer's build goes and `outpost serve` looks for it (OUTPOST_RENDERER_DIR, else dist/renderer). */
export declare function rendererDir(root: string): string;
/** Why the build at `target` must be made again ("missing", "older than …"), or undefined when it is fresh. */
export declare function rendererStale(root: string, target: string): string | undefined;
/** Build the renderer aside and swap it in at `target`. */
export declare function buildRenderer(root: string, target: string): Promise<void>;
/** Build the renderer when it is missing or stale. */
export declare function ensureRenderer(root: string): Promise<void>;
