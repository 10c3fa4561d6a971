import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, UseGuards } from '@nestjs/common';
import { type AuthUser, CurrentUser, JwtAuthGuard } from '@perp/auth';
import { z } from 'zod';
import { ApiDoc } from '../../openapi/api-doc';
import { ApiKey, CreatedApiKey } from '../../openapi/native-responses';
import {
  API_KEY_CREATE_BODY,
  API_KEY_UPDATE_BODY,
  type ApiKeyView,
  type CreatedApiKeyView,
} from './api-key-body';

const keyId = { id: z.string().meta({ description: 'Key id (UUID); any other value is NOT_FOUND' }) };
import { ApiKeysService } from './api-keys.service';

/**
 * Spec "Native: API keys": JWT only. An API key is no login (X-MBX-APIKEY is ignored here, and a
 * key sent as a bearer token is not a JWT), so no key can create, change or delete keys. A key of
 * another user answers 404 NOT_FOUND, as if it did not exist.
 */
@Controller('api/v1/api-keys')
@UseGuards(JwtAuthGuard)
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @HttpCode(200)
  @ApiDoc({
    tag: 'api-keys',
    summary: 'Create an API key (the secret is shown once)',
    body: API_KEY_CREATE_BODY,
    response: CreatedApiKey,
    errors: ['LIMIT_REACHED', 'INVALID_IP', 'INVALID_REQUEST'],
  })
  create(@CurrentUser() user: AuthUser, @Body() body: unknown): Promise<CreatedApiKeyView> {
    return this.keys.create(user.address, body);
  }

  @Get()
  @ApiDoc({ tag: 'api-keys', summary: 'Your API keys (no secrets)', response: z.array(ApiKey) })
  list(@CurrentUser() user: AuthUser): Promise<ApiKeyView[]> {
    return this.keys.list(user.address);
  }

  @Put(':id')
  @ApiDoc({
    tag: 'api-keys',
    summary: 'Change label, IP whitelist or status',
    path: keyId,
    body: API_KEY_UPDATE_BODY,
    response: ApiKey,
    errors: ['INVALID_IP', 'INVALID_REQUEST', 'NOT_FOUND'],
  })
  update(@CurrentUser() user: AuthUser, @Param('id') id: string, @Body() body: unknown): Promise<ApiKeyView> {
    return this.keys.update(user.address, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiDoc({
    tag: 'api-keys',
    summary: 'Delete an API key (immediate)',
    path: keyId,
    status: 204,
    errors: ['NOT_FOUND'],
  })
  async remove(@CurrentUser() user: AuthUser, @Param('id') id: string): Promise<void> {
    await this.keys.remove(user.address, id);
  }
}
