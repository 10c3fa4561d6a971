/**
 * Counts per key (user and symbol) kept beside the orders they count, so a limit check is one
 * map read however many orders a user has.
 */
export class OrderCounter {
  private readonly counts = new Map<string, number>();

  static key(user: string, symbol: string): string {
    return `${user}|${symbol}`;
  }

  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /** True when one more would go above `limit`. */
  isFull(key: string, limit: number): boolean {
    return this.count(key) >= limit;
  }

  add(key: string): void {
    this.counts.set(key, this.count(key) + 1);
  }

  remove(key: string): void {
    const n = this.count(key) - 1;
    if (n > 0) this.counts.set(key, n);
    else this.counts.delete(key);
  }
}
