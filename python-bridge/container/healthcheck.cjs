// Docker HEALTHCHECK of the gear service image: GET /healthz on GEAR_BIND:GEAR_PORT (loopback when
// the service binds every address). Exit 0 when it answers 200 ({"status":"ok"}), 1 otherwise
// (503 while draining, refused, or no answer within 2 s).
'use strict';
const http = require('node:http');

const bind = process.env.GEAR_BIND || '127.0.0.1';
const host = bind === '0.0.0.0' || bind === '::' ? '127.0.0.1' : bind.replace(/^\[(.*)\]$/, '$1');
const port = Number(process.env.GEAR_PORT || 8765);

const req = http.get({ host, port, path: '/healthz', timeout: 2000 }, (res) => {
  res.resume();
  process.exit(res.statusCode === 200 ? 0 : 1);
});
req.on('timeout', () => req.destroy(new Error('timeout')));
req.on('error', () => process.exit(1));
