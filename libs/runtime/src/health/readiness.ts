import { Injectable } from '@nestjs/common';

export type ReadinessCheck = () => boolean | Promise<boolean>;

/** Modules register what must hold before the process takes traffic (adapters connected, state restored). */
@Injectable()
export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();

  register(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  async report(): Promise<{ ready: boolean; checks: Record<string, boolean> }> {
    const checks: Record<string, boolean> = {};
    for (const [name, check] of this.checks) {
      try {
        checks[name] = await check();
      } catch {
        checks[name] = false;
      }
    }
    return { ready: Object.values(checks).every(Boolean), checks };
  }
}
