import { InitialSchema1763712000000 } from './1763712000000-initial-schema';
import { TradeSides1763800000000 } from './1763800000000-trade-sides';
import { ApiKeyChain1763900000000 } from './1763900000000-api-key-chain';
import { MarketData1764000000000 } from './1764000000000-market-data';
import { AlgoOrders1764100000000 } from './1764100000000-algo-orders';
import { Liquidations1764300000000 } from './1764300000000-liquidations';
import { MarketBooks1764400000000 } from './1764400000000-market-books';
import { ListenKeys1764500000000 } from './1764500000000-listen-keys';
import { OrderStpMode1764600000000 } from './1764600000000-order-stp-mode';
import { SnapshotEncoding1764700000000 } from './1764700000000-snapshot-encoding';

/** Every migration, oldest first. Listed as classes (not globs) so dist/ and Jest load the same code. */
export const MIGRATIONS = [
  InitialSchema1763712000000,
  TradeSides1763800000000,
  ApiKeyChain1763900000000,
  MarketData1764000000000,
  AlgoOrders1764100000000,
  Liquidations1764300000000,
  MarketBooks1764400000000,
  ListenKeys1764500000000,
  OrderStpMode1764600000000,
  SnapshotEncoding1764700000000,
];
