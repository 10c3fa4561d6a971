/** Resolves once `check()` holds, polling every `everyMs`; rejects after `ms`. */
export async function eventually(check: () => boolean, ms = 5_000, everyMs = 5): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not reached in ${ms} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
