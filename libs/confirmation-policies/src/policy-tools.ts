import { Injectable } from '@nestjs/common';
import type { PolicyTool } from './confirmation-policy.js';

/**
 * The tools an organisation may set a confirmation policy for. The tool table owns that fact (it
 * knows which tools are destructive); it declares them here once at start-up, so this library
 * needs no knowledge of the catalogue.
 */
@Injectable()
export class PolicyTools {
  private readonly tools = new Map<string, PolicyTool>();

  declare(tools: readonly PolicyTool[]): void {
    for (const t of tools) this.tools.set(t.name, t);
  }

  get(name: string): PolicyTool | undefined {
    return this.tools.get(name);
  }

  /** In name order. */
  all(): PolicyTool[] {
    return [...this.tools.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
}
