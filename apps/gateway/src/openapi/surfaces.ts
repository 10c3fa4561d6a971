/** The two API documents: which routes each one describes. */
export type Surface = 'fapi' | 'native';

/** FAPI is every Binance-style path; the native document has the rest (native, admin, probes, docs). */
export function surfaceOf(path: string): Surface {
  return path.startsWith('/fapi/') || path.startsWith('/futures/') ? 'fapi' : 'native';
}
