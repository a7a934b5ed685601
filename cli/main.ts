#!/usr/bin/env node
// The CLI runs from one CommonJS bundle of its modules (dist/cli/gear.cjs, made by
// scripts/bundle-cli from gear-cli.js): Node starts it a quarter faster than it links the compiled
// ES modules one by one, and every `gear judge` or `gear score` call pays that start.
import { createRequire } from 'node:module';

createRequire(import.meta.url)('./gear.cjs');
