#!/usr/bin/env node
'use strict';
// The installed `outpost` command: the bundle made by `npm run build:node` (run by `prepare`).
require('../dist/node/outpost.cjs');
