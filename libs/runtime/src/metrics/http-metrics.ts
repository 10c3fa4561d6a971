import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics';

/**
 * Times every reply, labelled by the route pattern (`/fapi/v1/order`, never the URL with its ids
 * and query) and the status sent; requests no route matched share `route="unmatched"`, so a scan
 * of random paths cannot grow the series.
 */
export function instrumentHttp(fastify: FastifyInstance, metrics: Metrics): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequestTally.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
