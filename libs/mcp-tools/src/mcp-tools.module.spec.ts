import { describe, expect, it } from 'vitest';
import { MODULE_METADATA } from '@nestjs/common/constants';
import { McpToolsModule } from './mcp-tools.module.js';

function listed(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

/** Every controller a module brings in through its imports (static or dynamic), transitively. */
function controllersReachedFrom(root: unknown): string[] {
  const seen = new Set<unknown>();
  const found: string[] = [];
  const visit = (ref: unknown): void => {
    if (typeof ref !== 'function' && (typeof ref !== 'object' || ref === null)) return;
    if (seen.has(ref)) return;
    seen.add(ref);
    // A dynamic module is `{ module, imports }`; a static one is the class itself.
    const dynamic: unknown = 'module' in ref ? ref.module : undefined;
    const mod: object = typeof dynamic === 'function' ? dynamic : ref;
    for (const c of listed(Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, mod)))
      if (typeof c === 'function') found.push(c.name);
    listed(Reflect.getMetadata(MODULE_METADATA.IMPORTS, mod)).forEach(visit);
    if ('imports' in ref) listed(ref.imports).forEach(visit);
  };
  visit(root);
  return found;
}

describe('McpToolsModule', () => {
  it('brings in no REST controller: the executor writes history through the writer alone, not the admin API', () => {
    expect(controllersReachedFrom(McpToolsModule)).toEqual([]);
  });
});
