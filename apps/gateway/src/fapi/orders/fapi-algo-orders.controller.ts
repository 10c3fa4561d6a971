import { Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import {
  ALGO_ORDER_PARAMS,
  type AlgoOrderRecord,
  FapiError,
  type FapiErrorName,
  FapiFields,
  fapiParam as P,
  parseAlgoOrder,
  scalar,
} from '@perp/contracts';
import { type Market, MarketRegistry, Money } from '@perp/domain';
import { z } from 'zod';
import { Caller, type FapiCaller, Signed } from '../../access';
import { fapiMarket } from '../../markets/market-lookup';
import { ApiDoc } from '../../openapi/api-doc';
import { FapiAlgoCancel, FapiAlgoOrder, Success } from '../../openapi/fapi-responses';
import { FapiInput } from '../../openapi/route-inputs';
import { fapiAlgoResult } from '../../risk/fapi-outcome';
import { RiskClient } from '../../risk/risk-client';
import { AlgoOrderReader, algoWindow, fapiAlgoOrder } from './algo-order-reader';

type Wire = ReturnType<typeof fapiAlgoOrder>;

const ALGO_REF_PARAMS = {
  algoId: P.int('Algo order id; or send clientAlgoId', 0).optional(),
  clientAlgoId: P.clientOrderId('Your algo order id').optional(),
};
const CANCEL_PARAMS = {
  ...ALGO_REF_PARAMS,
  symbol: P.symbol('Ignored (accepted for clients that send it)').optional(),
};
const OPEN_PARAMS = {
  symbol: P.symbol().optional(),
  algoType: P.oneOf(['CONDITIONAL'], 'INVALID_DATA_FOR_PARAMETER', 'Only CONDITIONAL').optional(),
  algoId: P.int('Only this algo order', 0).optional(),
};
const ALL_PARAMS = {
  symbol: P.symbol(),
  algoId: P.int('Algo orders from this id on', 0).optional(),
  startTime: P.time('From this time').optional(),
  endTime: P.time('Up to this time (at most 7 days after startTime)').optional(),
  page: P.int('Page, from 1', 1).optional(),
  limit: P.limit(500, 1000),
};
const SYMBOL = { symbol: P.symbol() };

const NEW_ERRORS: FapiErrorName[] = [
  'ILLEGAL_CHARS',
  'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
  'PARAMETER_NOT_REQUIRED',
  'INVALID_SYMBOL',
  'INVALID_DATA_FOR_PARAMETER',
  'NEW_ORDER_REJECTED',
  'ORDER_WOULD_TRIGGER_IMMEDIATELY',
  'MAX_OPEN_ORDER_EXCEEDED',
  'TIMEOUT',
  'DISCONNECTED',
];

/**
 * Algo (conditional) orders: placed, cancelled and queried here; the user's risk shard holds them
 * beside the /fapi/v1/order trigger orders and fires them on the mark (DESIGN: keeper).
 */
@Controller('fapi/v1')
export class FapiAlgoOrdersController {
  constructor(
    private readonly risk: RiskClient,
    private readonly markets: MarketRegistry,
    private readonly reader: AlgoOrderReader,
  ) {}

  @Post('algoOrder')
  @Signed({ type: 'TRADE', weight: 1, orders: 1 })
  @HttpCode(200)
  @ApiDoc({
    tag: 'orders',
    summary: 'New algo order (STOP, TAKE_PROFIT, their MARKET forms, TRAILING_STOP_MARKET)',
    description:
      'Waits for the mark: a trailing stop follows it from its activation price; GTD expires at goodTillDate; ' +
      'closePosition closes the position as it is at firing. -2025 when the symbol already has MAX_NUM_ORDERS open orders.',
    response: FapiAlgoOrder,
    errors: NEW_ERRORS,
  })
  async newAlgoOrder(
    @Caller() caller: FapiCaller,
    @FapiInput(ALGO_ORDER_PARAMS) q: FapiFields<typeof ALGO_ORDER_PARAMS>,
  ): Promise<Wire> {
    const body = parseAlgoOrder(q.raw, Date.now());
    const market = fapiMarket(this.markets, body.symbol);
    for (const name of ['triggerPrice', 'price', 'activatePrice'] as const)
      checkTick(market, name, body[name]);
    const result = fapiAlgoResult(
      await this.risk.send({ ...body, symbol: market.symbol, user: caller.address }),
    );
    return fapiAlgoOrder(result as AlgoOrderRecord);
  }

  @Delete('algoOrder')
  @Signed({ type: 'TRADE', weight: 1 })
  @ApiDoc({
    tag: 'orders',
    summary: 'Cancel an algo order',
    description:
      'A CANCELED one cancels again (idempotent); a triggered, finished, expired or failed one is -2011.',
    response: FapiAlgoCancel,
    errors: [
      'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
      'ILLEGAL_CHARS',
      'UNKNOWN_ORDER',
      'NO_SUCH_ORDER',
      'TIMEOUT',
    ],
  })
  async cancel(@Caller() caller: FapiCaller, @FapiInput(CANCEL_PARAMS) q: FapiFields<typeof CANCEL_PARAMS>) {
    const ref = algoRef(q);
    const r = fapiAlgoResult(await this.risk.send({ type: 'algo.cancel', user: caller.address, ...ref }));
    const { algoId, clientAlgoId } = r as AlgoOrderRecord;
    return { algoId, clientAlgoId, code: '200', msg: 'success' };
  }

  @Delete('algoOpenOrders')
  @Signed({ type: 'TRADE', weight: 1 })
  @ApiDoc({
    tag: 'orders',
    summary: 'Cancel every open algo order of a symbol',
    response: Success,
    errors: ['MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'INVALID_SYMBOL', 'TIMEOUT'],
  })
  async cancelAll(@Caller() caller: FapiCaller, @FapiInput(SYMBOL) q: FapiFields<typeof SYMBOL>) {
    const market = fapiMarket(this.markets, q.get('symbol'));
    fapiAlgoResult(
      await this.risk.send({ type: 'algo.cancelAll', user: caller.address, symbol: market.symbol }),
    );
    return { code: 200, msg: 'The operation of cancel all open order is done.' };
  }

  @Get('openAlgoOrders')
  @Signed({ type: 'USER_DATA', weight: (p) => (scalar(p, 'symbol') ? 1 : 40) })
  @ApiDoc({
    tag: 'orders',
    summary: 'Open (NEW) algo orders',
    response: z.array(FapiAlgoOrder),
    errors: ['INVALID_SYMBOL', 'INVALID_DATA_FOR_PARAMETER', 'ILLEGAL_CHARS'],
  })
  async open(@Caller() caller: FapiCaller, @FapiInput(OPEN_PARAMS) q: FapiFields<typeof OPEN_PARAMS>) {
    const symbol = q.get('symbol');
    const market = symbol === undefined ? undefined : fapiMarket(this.markets, symbol);
    q.get('algoType');
    const algoId = q.get('algoId');
    const { live } = await this.reader.all(caller.address);
    return live
      .filter((r) => r.algoStatus === 'NEW')
      .filter((r) => (!market || r.symbol === market.symbol) && (algoId === undefined || r.algoId === algoId))
      .map(fapiAlgoOrder);
  }

  @Get('algoOrder')
  @Signed({ type: 'USER_DATA', weight: 1 })
  @ApiDoc({
    tag: 'orders',
    summary: 'One algo order, in any state',
    response: FapiAlgoOrder,
    errors: ['MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'ILLEGAL_CHARS', 'NO_SUCH_ORDER'],
  })
  async one(@Caller() caller: FapiCaller, @FapiInput(ALGO_REF_PARAMS) q: FapiFields<typeof ALGO_REF_PARAMS>) {
    return fapiAlgoOrder(await this.reader.one(caller.address, algoRef(q)));
  }

  @Get('allAlgoOrders')
  @Signed({ type: 'USER_DATA', weight: 5 })
  @ApiDoc({
    tag: 'orders',
    summary: 'Algo orders of a symbol in a window of at most 7 days (default: the last 7 days)',
    description: 'From the live algo orders and the algo order history (Postgres), by algoId; `page` from 1.',
    response: z.array(FapiAlgoOrder),
    errors: ['MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'ILLEGAL_CHARS', 'INVALID_SYMBOL'],
  })
  async all(@Caller() caller: FapiCaller, @FapiInput(ALL_PARAMS) q: FapiFields<typeof ALL_PARAMS>) {
    const market = fapiMarket(this.markets, q.get('symbol'));
    const { from, to } = algoWindow(Date.now(), q.get('startTime'), q.get('endTime'));
    const records = await this.reader.list(caller.address, {
      symbol: market.symbol,
      from,
      to,
      fromId: q.get('algoId'),
      page: q.get('page') ?? 1,
      limit: q.get('limit'),
    });
    return records.map(fapiAlgoOrder);
  }
}

/** algoId wins when both are sent; neither is -1102. */
function algoRef(q: FapiFields<typeof ALGO_REF_PARAMS>): { algoId: number } | { clientAlgoId: string } {
  const algoId = q.get('algoId');
  if (algoId !== undefined) return { algoId };
  const clientAlgoId = q.get('clientAlgoId');
  if (clientAlgoId !== undefined) return { clientAlgoId };
  throw new FapiError(
    'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
    "Param 'algoId' or 'clientAlgoId' must be sent, but both were empty/null.",
  );
}

/** A price off the market's tick grid: a bad numeric field on algo orders (-1100). */
function checkTick(market: Market, name: string, v?: string): void {
  if (v !== undefined && !new Money(v).mod(market.tickSize).isZero())
    throw new FapiError('ILLEGAL_CHARS', `${name} must be a multiple of ${market.tickSize}.`);
}
