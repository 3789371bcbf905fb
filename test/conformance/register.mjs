// Loaded with `NODE_OPTIONS=--import <this file>` for the conformance CLI only (see run.mjs).
// @modelcontextprotocol/conformance imports `globSync` from `fs`, which Node 20 does not have, and
// crashes at load time. This registers a resolve hook that hands modules under that package a
// stand-in `fs` (node:fs plus a globSync that throws: only the unused `tier-check` command calls it).
import { register } from 'node:module';

register('./fs-redirect.hooks.mjs', import.meta.url);
