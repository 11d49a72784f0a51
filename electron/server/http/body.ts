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

export function parseBody(contentType: string | undefined, body: Buffer): JsonValue {
  if (body.length === 0) return {};
  const media = isJsonMediaType(contentType ?? '');
  if (!media.json) throw ApiError.detail(415, message.unsupportedMediaType(contentType ?? ''));
  const parsed = parseJsonBytes(body, media.charset);
  if (!parsed.ok) throw ApiError.detail(400, message.jsonParseError(parsed.reason));
  return parsed.value;
}
