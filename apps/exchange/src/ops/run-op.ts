import type { LoggerService } from '@nestjs/common';
import { type AppConfig, jsonLogger, loadAppConfig } from '@perp/runtime';

/** Runs one setup step with the apps' configuration and JSON log lines; exit 0 when done, 1 with the reason. */
export function runOp(name: string, op: (config: AppConfig, logger: LoggerService) => Promise<void>): void {
  let logger: LoggerService = jsonLogger(name, 'log');
  void (async () => {
    const config = loadAppConfig();
    logger = jsonLogger(name, config.LOG_LEVEL);
    await op(config, logger);
  })().then(
    // Exit at once: client libraries may keep timers after closing.
    () => process.exit(0),
    (e: unknown) => {
      logger.error(e instanceof Error ? e.message : String(e));
      process.exit(1);
    },
  );
}
