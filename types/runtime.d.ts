/**
 * The Web APIs the engine relies on that every JavaScript runtime provides (browsers, workers,
 * Node, Deno, Bun) but ES2023's lib does not declare: UTF-8 encoding and decoding (WHATWG
 * Encoding Standard). Declared here, minimally, for tsconfig.engine.json, which leaves out the DOM
 * and Node types so that any other DOM or Node API used in src/engine fails to compile.
 */
interface TextDecodeOptions {
  stream?: boolean;
}
interface TextDecoderOptions {
  fatal?: boolean;
  ignoreBOM?: boolean;
}
interface TextDecoder {
  readonly encoding: string;
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: ArrayBuffer | ArrayBufferView, options?: TextDecodeOptions): string;
}
declare const TextDecoder: {
  prototype: TextDecoder;
  new (label?: string, options?: TextDecoderOptions): TextDecoder;
};
interface TextEncoder {
  readonly encoding: string;
  encode(input?: string): Uint8Array;
}
declare const TextEncoder: {
  prototype: TextEncoder;
  new (): TextEncoder;
};
