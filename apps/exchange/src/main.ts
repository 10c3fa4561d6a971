import { bootstrap } from '@perp/runtime';
import { ExchangeModule } from './exchange.module';

void bootstrap('exchange', (config) => ExchangeModule.forRoot(config));
