import { Controller, Delete, HttpCode, Post, Put, UseGuards } from '@nestjs/common';
import { FapiError, type FapiFields, fapiParam as P } from '@perp/contracts';
import { z } from 'zod';
import { Caller, type FapiCaller } from '../../access';
import { ApiDoc } from '../../openapi/api-doc';
import { Empty } from '../../openapi/fapi-responses';
import { FapiInput } from '../../openapi/route-inputs';
import { ListenKeys } from './listen-keys';
import { UserStreamGuard } from './user-stream.guard';

const LISTEN_KEY = { listenKey: P.text('The active key (optional; another one is -1125)').optional() };
const ListenKey = z.object({ listenKey: z.string() });

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
  @ApiDoc({ tag: 'user-stream', summary: 'Open (or extend) the user data stream key', response: ListenKey })
  async open(@Caller() caller: FapiCaller): Promise<{ listenKey: string }> {
    return { listenKey: await this.keys.open(caller.address) };
  }

  @Put()
  @ApiDoc({
    tag: 'user-stream',
    summary: 'Keep the key alive',
    response: ListenKey,
    errors: ['INVALID_LISTEN_KEY'],
  })
  async keepAlive(
    @Caller() caller: FapiCaller,
    @FapiInput(LISTEN_KEY) q: FapiFields<typeof LISTEN_KEY>,
  ): Promise<{ listenKey: string }> {
    const named = q.get('listenKey');
    const active = await this.keys.active(caller.address);
    if (active === undefined || (named !== undefined && named !== active)) throw noListenKey();
    const listenKey = await this.keys.keepAlive(caller.address);
    if (listenKey === undefined) throw noListenKey();
    return { listenKey };
  }

  @Delete()
  @ApiDoc({ tag: 'user-stream', summary: 'Close the key', response: Empty, errors: ['INVALID_LISTEN_KEY'] })
  async close(
    @Caller() caller: FapiCaller,
    @FapiInput(LISTEN_KEY) q: FapiFields<typeof LISTEN_KEY>,
  ): Promise<Record<string, never>> {
    const named = q.get('listenKey');
    const active = await this.keys.active(caller.address);
    if (named !== undefined && named !== active) throw noListenKey();
    if (active !== undefined) await this.keys.close(caller.address, active);
    return {};
  }
}
