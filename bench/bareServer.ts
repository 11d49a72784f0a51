/**
 * The ceiling: a bare node:http server answering one constant body (a real 30-row page of the
 * same size as the API's) with the same headers, so the difference is the API's own work.
 */
import fs from 'node:fs';
import http from 'node:http';

const body = fs.readFileSync(process.argv[2]!);
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(body.length), Vary: 'Accept' });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`listening on http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
