/** The caller of a signed FAPI request, put on the request by SignedRequestGuard. */
export interface FapiCaller {
  userId: string;
  /** Lowercase wallet address. */
  address: string;
  apiKeyId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    fapiCaller?: FapiCaller;
  }
}
