// Types of build/electronBundle.mjs.

/** Bundle dist/electron/{main,preload,server}.cjs; returns the folder. */
export declare function bundleElectron(options: { readonly root: string; readonly quiet?: boolean }): Promise<string>;
