// Types of build/native.mjs (plain JavaScript, run by Node before anything is compiled).

export declare const NATIVE_FILE: 'better_sqlite3.node';

export declare class BuildError extends Error {}

export declare function nativeBuildFolder(root: string, electronVersion: string, platform: string, arch: string): string;

export declare function requireNode(major: number, minor: number, what: string, version?: string): void;

export declare function prepareRebuildCopy(root: string, work: string): string;

export interface RebuildOptions {
  readonly buildPath: string;
  readonly electronVersion: string;
  readonly platform: string;
  readonly arch: string;
  readonly onlyModules: string[];
  readonly force: boolean;
  readonly mode: 'sequential';
}

export declare function ensureNativeBinding(options: {
  readonly root: string;
  readonly electronVersion: string;
  readonly platform?: string;
  readonly arch?: string;
  readonly force?: boolean;
  readonly log?: (line: string) => void;
  /** @electron/rebuild's `rebuild` (tests pass a fake). */
  readonly rebuild?: (options: RebuildOptions) => Promise<void>;
}): Promise<string>;
