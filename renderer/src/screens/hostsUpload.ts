/**
 * Sending a file to an import endpoint with XMLHttpRequest, the one browser API that reports
 * upload progress; fetch() cannot. Authenticates as the API client does (session cookie and CSRF
 * token in a browser; the app:// protocol adds the token in Electron).
 */
import { appPath, type AppAnswer } from '../../../shared/app/routes';
import type { JsonValue } from '../../../shared/resources';
import { answerOf, ApiFailure, csrfToken, withQuery } from '../api/client';

export interface Upload<T = JsonValue> {
  /** The answer's JSON on 2xx; ApiFailure otherwise; an AbortError DOMException after abort(). */
  readonly done: Promise<T>;
  abort(): void;
}

export interface UploadEvents {
  /** Bytes sent so far of the file. */
  onProgress(loaded: number, total: number): void;
  /** The whole file is sent; the server is working on it. */
  onSent(): void;
}

function parseAnswer(text: string): JsonValue {
  if (text === '') return null;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return { detail: text.slice(0, 200) };
  }
}

export function uploadJsonFile(url: string, file: Blob, events: UploadEvents): Upload {
  return uploadFile(url, file, 'application/json', events);
}

/**
 * Send a file as the request's body. The browser reads it from disk as it sends it: the page
 * never holds its bytes (an EVE log may be gigabytes).
 */
export function uploadFile(url: string, file: Blob, contentType: string, events: UploadEvents): Upload {
  const xhr = new XMLHttpRequest();
  const done = new Promise<JsonValue>((resolve, reject) => {
    xhr.open('POST', url);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('Content-Type', contentType);
    const csrf = csrfToken();
    if (csrf) xhr.setRequestHeader('X-CSRFToken', csrf);
    xhr.withCredentials = true;
    xhr.upload.onprogress = (event) => events.onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    xhr.upload.onload = () => {
      events.onProgress(file.size, file.size);
      events.onSent();
    };
    xhr.onload = () => {
      const body = parseAnswer(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else reject(new ApiFailure(xhr.status, body));
    };
    xhr.onerror = () => reject(new ApiFailure(0, { detail: 'The local server did not answer; it may be restarting.' }));
    xhr.onabort = () => reject(new DOMException('The import was cancelled.', 'AbortError'));
    xhr.send(file);
  });
  return { done, abort: () => xhr.abort() };
}

/** An EVE log sent to `/app/hosts/import-eve`: its answer is the import's summary (the route's type). */
export function uploadEveLog(file: File, events: UploadEvents): Upload<AppAnswer<'importEve'>> {
  const upload = uploadFile(withQuery(appPath('importEve'), { name: file.name }), file, 'application/octet-stream', events);
  return { done: upload.done.then((body) => answerOf('importEve', body)), abort: () => upload.abort() };
}
