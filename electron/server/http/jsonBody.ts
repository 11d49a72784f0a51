/**
 * Response bodies: a JSON value to render, or JSON rendered already (objects the server keeps
 * rendered between changes), sent as it is and parsed only when another form (indented, the
 * browsable page) is asked for. Rendered JSON carries its UTF-8 length, so the body is never
 * scanned again to size it (node:http writes a string faster than many buffers).
 */
import { renderJson } from '../../../shared/api/json';
import type { JsonValue } from '../../../shared/resources';

/** Compact JSON in its final form (separators escaped) and its length in UTF-8 bytes. */
export class RenderedJson {
  constructor(
    readonly text: string,
    readonly byteLength: number,
  ) {}

  static of(text: string): RenderedJson {
    return new RenderedJson(text, Buffer.byteLength(text));
  }
}

export type Body = JsonValue | RenderedJson;

export function renderBody(body: Body, indent?: number): RenderedJson {
  if (body instanceof RenderedJson) return indent ? RenderedJson.of(renderJson(bodyValue(body), indent)) : body;
  return RenderedJson.of(renderJson(body, indent));
}

export function bodyValue(body: Body): JsonValue {
  return body instanceof RenderedJson ? (JSON.parse(body.text) as JsonValue) : body;
}
