/**
 * Request bodies as DRF's JSONParser reads them: an empty body is `{}` whatever its type;
 * another media type → 415; malformed JSON → 400 `JSON parse error - <reason>`.
 */
import { ApiError } from '../../../shared/api/errors';
import { message } from '../../../shared/api/messages';
import { parseJsonBytes } from '../../../shared/api/pythonJson';
import type { JsonValue } from '../../../shared/resources';

function isJsonMediaType(contentType: string): { json: boolean; charset?: string } {
  const [type = '', ...params] = contentType.split(';');
  const [main = '', sub = ''] = type.trim().toLowerCase().split('/');
  const json = (main === 'application' || main === '*') && (sub === 'json' || sub === '*');
  const charset = params
    .map((p) => p.split('='))
    .find(([k]) => k?.trim().toLowerCase() === 'charset')?.[1]
    ?.trim()
    .replace(/^"(.*)"$/, '$1');
  return charset === undefined ? { json } : { json, charset };
}

/**
 * The body of a request answered from its head alone, or handed to the body worker: the
 * transport never read it for the handler, so reading it is refused, never taken for `{}`.
 */
export const BODY_WITHHELD: Buffer = Buffer.alloc(0);

export const BODY_NOT_READ = 'The request body was not read; send the request again.';

/** The charset a JSON body declares (undefined: none, UTF-8); 415 for another media type. */
export function jsonCharset(contentType: string | undefined): string | undefined {
  const media = isJsonMediaType(contentType ?? '');
  if (!media.json) throw ApiError.detail(415, message.unsupportedMediaType(contentType ?? ''));
  return media.charset;
}

export function parseBody(contentType: string | undefined, body: Buffer): JsonValue {
  if (body === BODY_WITHHELD) throw ApiError.detail(400, BODY_NOT_READ);
  if (body.length === 0) return {};
  const parsed = parseJsonBytes(body, jsonCharset(contentType));
  if (!parsed.ok) throw ApiError.detail(400, message.jsonParseError(parsed.reason));
  return parsed.value;
}
