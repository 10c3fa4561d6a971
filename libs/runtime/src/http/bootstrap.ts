import { Logger } from '@nestjs/common';
import { compileMessageChecks } from '@perp/contracts';
import { loadAppConfig } from '../config/app-config';
import { createHttpApp } from './create-http-app';

/** Entry point of every app: validate config, build, listen; a bad configuration exits 1 with its reason. */
export async function bootstrap(
  name: string,
  rootModuleFor: (config: ReturnType<typeof loadAppConfig>) => unknown,
) {
  let config;
  let rootModule;
  try {
    config = loadAppConfig();
    rootModule = rootModuleFor(config);
  } catch (e) {
    process.stderr.write(`${name}: ${(e as Error).message}\n`);
    process.exit(1);
  }
  // Before any module joins a consumer group (see compileMessageChecks).
  compileMessageChecks();
  const app = await createHttpApp(rootModule, config, name);
  await app.listen(config.PORT, config.HOST);
  new Logger(name).log(`listening on ${await app.getUrl()} (chain ${config.CHAIN}, bus ${config.BUS})`);
  return app;
}
