import { Money } from '../../money/money';

/**
 * JSON of a value with every Money as its plain decimal string, so results of two books compare
 * by value (Money's own toJSON may switch to exponent notation).
 */
export function moneyJson(value: unknown): string {
  return JSON.stringify(plain(value));
}

function plain(value: unknown): unknown {
  if (value instanceof Money) return value.toFixed();
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Map) return [...value].map(plain);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}
