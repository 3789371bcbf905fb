import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The admin console, built into the server's `dist/admin-console` (served at `/admin/` by
 * `@app/admin-console`). Content-hashed file names (cached as immutable), no inline script or
 * style (the Content-Security-Policy allows neither), JSX compiled for Preact.
 */
export default defineConfig({
  root: here,
  base: '/admin/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/admin-console', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Everything as a file of its own: an inlined data: URL would need a looser policy.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: true,
  },
  server: { proxy: { '/v1': 'http://127.0.0.1:3000', '/oauth': 'http://127.0.0.1:3000' } },
});
