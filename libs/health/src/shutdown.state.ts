import { Injectable } from '@nestjs/common';

/**
 * The process's place in its life, as readiness reports it: not ready while starting (until the
 * bootstrap has seeded the demo organisation and written `demo-tokens.json`), ready, then not
 * ready again from the moment it starts draining (SIGTERM).
 */
@Injectable()
export class ShutdownState {
  private startedAt: Date | null = null;
  private drainingSince: Date | null = null;

  /** Called by the bootstrap once everything a client may read after readiness is in place. */
  markStarted(): void {
    this.startedAt ??= new Date();
  }

  get started(): boolean {
    return this.startedAt !== null;
  }

  startDraining(): void {
    this.drainingSince ??= new Date();
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }
}
