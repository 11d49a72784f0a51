/**
 * The WHATWG Encoding API, present in every runtime shared/ code runs in (Node, Chromium,
 * Electron). Declared here because shared/ compiles without the DOM or Node type libraries,
 * so that nothing else of either can be used by mistake.
 */
declare class TextEncoder {
  encode(input?: string): Uint8Array;
}

declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: Uint8Array): string;
}
