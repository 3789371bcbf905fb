import { Injectable } from '@nestjs/common';

/** Set when the process starts draining (SIGTERM): readiness answers 503 from then on. */
@Injectable()
export class ShutdownState {
  private drainingSince: Date | null = null;

  startDraining(): void {
    this.drainingSince ??= new Date();
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }
}
