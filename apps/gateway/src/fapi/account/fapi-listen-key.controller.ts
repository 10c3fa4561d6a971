import { Controller, Delete, HttpCode, Post, Put, UseGuards } from '@nestjs/common';
import { FapiError, type RawParams, scalar } from '@perp/contracts';
import { Caller, type FapiCaller, FapiParams } from '../../access';
import { ListenKeys } from './listen-keys';
import { UserStreamGuard } from './user-stream.guard';

function noListenKey(): FapiError {
  return new FapiError('INVALID_LISTEN_KEY', 'This listenKey does not exist.');
}

/**
 * User data stream keys (Binance type USER_STREAM, weight 1): API key only. POST returns the
 * active key (extended) or a new one; PUT extends it (-1125 when none is active or `listenKey`
 * names another); DELETE closes it.
 */
@Controller('fapi/v1/listenKey')
@UseGuards(UserStreamGuard)
export class FapiListenKeyController {
  constructor(private readonly keys: ListenKeys) {}

  @Post()
  @HttpCode(200)
  async open(@Caller() caller: FapiCaller): Promise<{ listenKey: string }> {
    return { listenKey: await this.keys.open(caller.address) };
  }

  @Put()
  async keepAlive(
    @Caller() caller: FapiCaller,
    @FapiParams() params: RawParams,
  ): Promise<{ listenKey: string }> {
    const named = scalar(params, 'listenKey') || undefined;
    const active = await this.keys.active(caller.address);
    if (active === undefined || (named !== undefined && named !== active)) throw noListenKey();
    const listenKey = await this.keys.keepAlive(caller.address);
    if (listenKey === undefined) throw noListenKey();
    return { listenKey };
  }

  @Delete()
  async close(@Caller() caller: FapiCaller, @FapiParams() params: RawParams): Promise<Record<string, never>> {
    const named = scalar(params, 'listenKey') || undefined;
    const active = await this.keys.active(caller.address);
    if (named !== undefined && named !== active) throw noListenKey();
    if (active !== undefined) await this.keys.close(caller.address, active);
    return {};
  }
}
