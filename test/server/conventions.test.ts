/** api.md §1: conventions every endpoint follows. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Client } from '../helpers/http';
import { addUser, startServer, type TestServer } from '../helpers/server';

let server: TestServer;
let api: Client;
let viewer: Client;
let inactive: Client;
beforeAll(async () => {
  server = await startServer();
  api = server.api;
  viewer = addUser(server, 'viewer', 'Read-only', '1'.repeat(40));
  inactive = addUser(server, 'former', 'Admin', '3'.repeat(40), false);
});
afterAll(() => server.close());

const anonymous = () => api.as(null);

describe('order of checks', () => {
  test('an anonymous DELETE on a read-only endpoint is 403, not 405', async () => {
    const reply = await anonymous().delete('/rest/appliances/appliances/1/');
    expect(reply.status).toBe(403);
    expect(reply.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  test('an anonymous GET of a missing pk is 403, not 404', async () => {
    expect((await anonymous().get('/rest/rules/source/999999/')).status).toBe(403);
  });

  test('Accept negotiation comes before authentication', async () => {
    const reply = await anonymous().get('/rest/rules/source/', { headers: { Accept: 'application/xml' } });
    expect(reply.status).toBe(406);
    expect(reply.json()).toEqual({ detail: 'Could not satisfy the request Accept header.' });
  });

  test('an unknown ?format= is 404', async () => {
    expect((await api.get('/rest/rules/source/?format=xml')).json()).toEqual({ detail: 'Not found.' });
  });

  test('a Read-only user gets 403 on a write before any validation', async () => {
    const reply = await viewer.post('/rest/rules/source/', { name: '' });
    expect(reply.status).toBe(403);
    expect(reply.json()).toEqual({ detail: 'You do not have permission to perform this action.' });
  });

  test('a manager writing to a read-only endpoint gets 405', async () => {
    expect((await api.delete('/rest/appliances/appliances/1/')).status).toBe(405);
  });
});

describe('authentication failures are 403 without WWW-Authenticate', () => {
  const cases: [string, Record<string, string>, string][] = [
    ['no credentials', {}, 'Authentication credentials were not provided.'],
    ['an unknown key', { Authorization: `Token ${'f'.repeat(40)}` }, 'Invalid token.'],
    ['Token alone', { Authorization: 'Token' }, 'Invalid token header. No credentials provided.'],
    ['a key with spaces', { Authorization: 'Token abc def' }, 'Invalid token header. Token string should not contain spaces.'],
    ['another scheme', { Authorization: 'Bearer abc' }, 'Authentication credentials were not provided.'],
  ];
  for (const [what, headers, detail] of cases) {
    test(`${what} → ${detail}`, async () => {
      const reply = await anonymous().get('/rest/rules/source/', { headers });
      expect(reply.status).toBe(403);
      expect(reply.json()).toEqual({ detail });
      expect(reply.headers['www-authenticate']).toBeUndefined();
    });
  }

  test('an inactive user is refused', async () => {
    expect((await inactive.get('/rest/rules/source/')).json()).toEqual({ detail: 'User inactive or deleted.' });
  });

  test('the keyword is case-insensitive', async () => {
    const reply = await anonymous().get('/rest/rules/source/', { headers: { Authorization: `token ${'a0'.repeat(20)}` } });
    expect(reply.status).toBe(200);
  });
});

describe('media types and bodies', () => {
  test('JSON answers are compact application/json, UTF-8 unescaped, with U+2028 escaped', async () => {
    const created = await api.post('/rest/rules/source/', { name: 'Zürich\u2028line' });
    expect(created.headers['content-type']).toBe('application/json');
    expect(created.text).toContain('"name":"Zürich\\u2028line"');
    expect(created.text).not.toContain('": ');
  });

  test('Accept: application/json; indent=4 pretty-prints', async () => {
    const reply = await api.get('/rest/appliances/vendor_device/1/', { headers: { Accept: 'application/json; indent=4' } });
    expect(reply.text).toContain('\n    "pk": 1,');
  });

  test('a body of another media type is 415', async () => {
    const reply = await api.post('/rest/rules/source/', undefined, { body: 'name=x', headers: { 'Content-Type': 'text/plain' } });
    expect(reply.status).toBe(415);
    expect(reply.json()).toEqual({ detail: 'Unsupported media type "text/plain" in request.' });
  });

  test('a body without Content-Type is 415 with an empty type', async () => {
    const reply = await api.post('/rest/rules/source/', undefined, { body: '{"name":"x"}' });
    expect(reply.json()).toEqual({ detail: 'Unsupported media type "" in request.' });
  });

  test('application/json with a charset is accepted', async () => {
    const reply = await api.post('/rest/rules/source/', undefined, {
      body: '{"name":"charset-ok"}',
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
    expect(reply.status).toBe(201);
  });

  test('an empty body is {}: a PATCH with no body changes nothing', async () => {
    const source = (await api.post('/rest/rules/source/', { name: 'empty-body' })).json();
    const reply = await api.send('PATCH', `/rest/rules/source/${source.pk}/`, { headers: { 'Content-Type': 'text/plain' } });
    expect(reply.status).toBe(200);
  });

  test('malformed JSON is 400 with the parser reason', async () => {
    const reply = await api.post('/rest/rules/source/', undefined, { body: '{"name":', headers: { 'Content-Type': 'application/json' } });
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ detail: 'JSON parse error - Expecting value: line 1 column 9 (char 8)' });
  });

  test('a JSON body that is not an object is 400 non_field_errors', async () => {
    expect((await api.post('/rest/rules/source/', [1])).json()).toEqual({
      non_field_errors: ['Invalid data. Expected a dictionary, but got list.'],
    });
  });
});

describe('headers and status codes', () => {
  test('every answer carries Allow, Vary and the security headers', async () => {
    const list = await api.get('/rest/rules/source/');
    expect(list.headers).toMatchObject({
      allow: 'GET, POST, HEAD, OPTIONS',
      vary: 'Accept',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'same-origin',
    });
    const source = (await api.post('/rest/rules/source/', { name: 'headers' })).json();
    expect((await api.get(`/rest/rules/source/${source.pk}/`)).headers.allow).toBe('GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
    expect((await anonymous().get('/rest/rules/source/')).headers.allow).toBe('GET, POST, HEAD, OPTIONS');
  });

  test('DELETE is 204 with no body and no Content-Type', async () => {
    const source = (await api.post('/rest/rules/source/', { name: 'deleted' })).json();
    const reply = await api.delete(`/rest/rules/source/${source.pk}/`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expect(reply.headers['content-type']).toBeUndefined();
  });

  test('HEAD answers as GET without a body', async () => {
    const get = await api.get('/rest/rules/source/');
    const head = await api.send('HEAD', '/rest/rules/source/');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.text)));
  });

  test('405 names the method and carries Allow', async () => {
    const reply = await api.send('PUT', '/rest/rules/source/', { json: {} });
    expect(reply.status).toBe(405);
    expect(reply.json()).toEqual({ detail: 'Method "PUT" not allowed.' });
  });

  test('unknown pk, non-numeric pk and unknown paths are 404 Not found.', async () => {
    for (const path of ['/rest/rules/source/999999/', '/rest/rules/source/abc/', '/rest/nothing/here/', '/rest/rules/source/1/extra/']) {
      const reply = await api.get(path);
      expect(reply.status, path).toBe(404);
      expect(reply.json()).toEqual({ detail: 'Not found.' });
    }
  });

  test('every path answers with or without its trailing slash, without a redirect', async () => {
    const source = (await api.post('/rest/rules/source', { name: 'no-slash' })).json();
    expect((await api.get(`/rest/rules/source/${source.pk}`)).status).toBe(200);
    expect((await api.patch(`/rest/rules/source/${source.pk}`, { uri: 'u' })).json().uri).toBe('u');
    expect((await api.delete(`/rest/rules/source/${source.pk}`)).status).toBe(204);
  });
});

describe('GET /rest/', () => {
  test('lists every endpoint family with absolute URLs on the request host', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const reply = await api.get('/rest/', accept ? { headers: { Accept: accept } } : {});
      expect(reply.status).toBe(200);
      const body = reply.json();
      expect(body['appliances/vendor_probe']).toBe(`${server.url}/rest/appliances/vendor_probe/`);
      expect(Object.keys(body)).toContain('rules/history');
      expect(Object.keys(body)).toContain('appliances/host_id');
    }
  });
});

describe('OPTIONS (SimpleMetadata shape)', () => {
  test('a list describes POST fields for a manager', async () => {
    const body = (await api.options('/rest/appliances/vendor_probe/')).json();
    expect(body).toMatchObject({ name: 'Vendor Probe List', renders: ['application/json', 'text/html'], parses: ['application/json'] });
    const post = body.actions.POST;
    expect(post.pk).toEqual({ type: 'integer', required: false, read_only: true, label: 'ID' });
    expect(post.name).toEqual({ type: 'string', required: true, read_only: false, label: 'Name', max_length: 100 });
    expect(post.capture_threads).toEqual({ type: 'integer', required: false, read_only: false, label: 'Capture threads', min_value: 1, max_value: 64 });
    expect(post.capture_method.choices).toEqual([
      { value: 'af_packet', display_name: 'af_packet' },
      { value: 'pcap', display_name: 'pcap' },
      { value: 'netmap', display_name: 'netmap' },
    ]);
    expect(post.parent_tmpl.type).toBe('field');
    expect(post.overriden_fields).toMatchObject({ type: 'list', child: { type: 'choice' } });
    expect(post.interfaces.child).toMatchObject({ type: 'nested object', children: { name: { max_length: 32 }, active: { type: 'boolean' } } });
    expect(post.comment).toEqual({ type: 'string', required: false, read_only: false, label: 'Comment' });
  });

  test('a detail describes PUT; a missing object or a read-only endpoint has no actions', async () => {
    const source = (await api.post('/rest/rules/source/', { name: 'options' })).json();
    const detail = (await api.options(`/rest/rules/source/${source.pk}/`)).json();
    expect(detail.name).toBe('Source Instance');
    expect(Object.keys(detail.actions)).toEqual(['PUT']);
    expect((await api.options('/rest/rules/source/999999/')).json()).not.toHaveProperty('actions');
    expect((await api.options('/rest/appliances/appliances/')).json()).not.toHaveProperty('actions');
  });

  test('a user who may not write gets no actions', async () => {
    expect((await viewer.options('/rest/rules/source/')).json()).not.toHaveProperty('actions');
  });
});
