import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, UseGuards } from '@nestjs/common';
import { type AuthUser, CurrentUser, JwtAuthGuard } from '@perp/auth';
import type { ApiKeyView, CreatedApiKeyView } from './api-key-body';
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
  create(@CurrentUser() user: AuthUser, @Body() body: unknown): Promise<CreatedApiKeyView> {
    return this.keys.create(user.address, body);
  }

  @Get()
  list(@CurrentUser() user: AuthUser): Promise<ApiKeyView[]> {
    return this.keys.list(user.address);
  }

  @Put(':id')
  update(@CurrentUser() user: AuthUser, @Param('id') id: string, @Body() body: unknown): Promise<ApiKeyView> {
    return this.keys.update(user.address, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@CurrentUser() user: AuthUser, @Param('id') id: string): Promise<void> {
    await this.keys.remove(user.address, id);
  }
}
