import type { JsonValue } from '../resources/fields';

/** An answer the API gives instead of the normal one: a status and a DRF-shaped body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: JsonValue,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(typeof body === 'object' && body !== null && 'detail' in body ? String(body.detail) : JSON.stringify(body));
  }

  static detail(status: number, detail: string, headers?: Record<string, string>): ApiError {
    return new ApiError(status, { detail }, headers);
  }

  /** 400 with field errors `{"field": ["message", ...]}`. */
  static validation(errors: JsonValue): ApiError {
    return new ApiError(400, errors);
  }
}

/** `{field: messages}` maps collected while validating, in field order. */
export type FieldErrors = Record<string, JsonValue>;

export function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0;
}
