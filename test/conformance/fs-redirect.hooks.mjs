// ESM resolve hook (module.register): `fs` / `node:fs` imported from inside
// @modelcontextprotocol/conformance resolves to ./fs-with-glob.mjs; every other import is untouched.
const SHIM = new URL('./fs-with-glob.mjs', import.meta.url).href;
const PACKAGE_MARKER = '/node_modules/@modelcontextprotocol/conformance/';

export async function resolve(specifier, context, nextResolve) {
  if (
    (specifier === 'fs' || specifier === 'node:fs') &&
    context.parentURL !== undefined &&
    context.parentURL.includes(PACKAGE_MARKER)
  ) {
    return { url: SHIM, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
